import { describe, expect, test } from "vitest";
import { PyJsonSyntaxError, dumpsPython, parsePyJson, pythonFloatRepr } from "../../src/grammar/python-json.js";

describe("json.dumps(data, ensure_ascii=False) equivalent", () => {
  // Expected strings are what CPython 3 prints for json.dumps(json.loads(input), ensure_ascii=False).
  test.each([
    ['{"a":1,"b":[true,false,null]}', '{"a": 1, "b": [true, false, null]}'],
    ["[1.0, 2.50, -0.0, 0.1, 100.0]", "[1.0, 2.5, -0.0, 0.1, 100.0]"],
    [
      "[1e-5, 0.0001, 1e16, 1e15, 1.5e300, 123456789012345680000.0]",
      "[1e-05, 0.0001, 1e+16, 1000000000000000.0, 1.5e+300, 1.2345678901234568e+20]",
    ],
    ["[1E2, 2e0, 1e400, -1e400]", "[100.0, 2.0, Infinity, -Infinity]"],
    ["[12345678901234567890123, -0]", "[12345678901234567890123, 0]"],
    ['"caf\\u00e9 \\ud83d\\ude00 \\u0001 \\u007f / \\/"', '"café 😀 \\u0001 \u007f / /"'],
    ['"tab\\t nl\\n cr\\r bs\\b ff\\f q\\" bsl\\\\"', '"tab\\t nl\\n cr\\r bs\\b ff\\f q\\" bsl\\\\"'],
    ['{"b": 1, "10": 2, "2": 3}', '{"b": 1, "10": 2, "2": 3}'],
    ['{"a": 1, "b": 2, "a": 3}', '{"a": 3, "b": 2}'],
    ["[NaN, Infinity, -Infinity]", "[NaN, Infinity, -Infinity]"],
    ["{}", "{}"],
    ["[]", "[]"],
  ])("%s", (input, expected) => {
    expect(dumpsPython(parsePyJson(input))).toBe(expected);
  });

  test.each([
    [0.30000000000000004, "0.30000000000000004"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [123.456, "123.456"],
    [-2.5e-7, "-2.5e-07"],
  ])("repr(%d) = %s", (x, s) => {
    expect(pythonFloatRepr(x)).toBe(s);
  });

  test.each(["{", '{"a" 1}', "[1,]", "01", '"\u0001"', "tru", "[1] x"])("rejects %j", (bad) => {
    expect(() => parsePyJson(bad)).toThrow(PyJsonSyntaxError);
  });
});
