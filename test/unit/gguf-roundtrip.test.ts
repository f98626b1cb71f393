import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  GgmlType,
  gguf,
  ggufNumber,
  ggufString,
  ggufStringArray,
  readGguf,
  readTensorBytes,
  writeGguf,
  type GgufMetadata,
  type GgufTensorSpec,
  type GgufValue,
} from "../../src/runtime/gguf/index.js";
import { decodeValues, encodeValues, f16BitsToF32, f32ToF16Bits } from "../../src/runtime/gguf/codec.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gguf-roundtrip-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** One value of every GGUF type, scalars at their extremes, arrays of every item type. */
const EVERY_VALUE: [string, GgufValue][] = [
  ["u8.max", gguf.uint8(255)],
  ["i8.min", gguf.int8(-128)],
  ["u16.max", gguf.uint16(65535)],
  ["i16.min", gguf.int16(-32768)],
  ["u32.max", gguf.uint32(0xffffffff)],
  ["i32.min", gguf.int32(-0x80000000)],
  ["f32", gguf.float32(1.5)],
  ["f32.tiny", gguf.float32(Math.fround(1e-6))],
  ["f64", gguf.float64(Math.PI)],
  ["bool.true", gguf.bool(true)],
  ["bool.false", gguf.bool(false)],
  ["str", gguf.string('héllo {{ messages }} 🦙\n\t"quoted"')],
  ["str.empty", gguf.string("")],
  ["u64.max", gguf.uint64(2n ** 64n - 1n)],
  ["i64.min", gguf.int64(-(2n ** 63n))],
  ["arr.u8", gguf.array("uint8", new Uint8Array([0, 1, 255]))],
  ["arr.i8", gguf.array("int8", new Int8Array([-128, 0, 127]))],
  ["arr.u16", gguf.array("uint16", new Uint16Array([0, 65535]))],
  ["arr.i16", gguf.array("int16", new Int16Array([-32768, 32767]))],
  ["arr.u32", gguf.array("uint32", new Uint32Array([0, 0xffffffff]))],
  ["arr.i32", gguf.array("int32", new Int32Array([1, 3, 6, -1]))],
  ["arr.f32", gguf.array("float32", new Float32Array([0, -1.25, 3e38]))],
  ["arr.f64", gguf.array("float64", new Float64Array([Math.E, -0]))],
  ["arr.u64", gguf.array("uint64", new BigUint64Array([0n, 2n ** 64n - 1n]))],
  ["arr.i64", gguf.array("int64", new BigInt64Array([-(2n ** 63n), 5n]))],
  ["arr.bool", gguf.boolArray([true, false, true])],
  ["arr.str", gguf.stringArray(["a", "", "Ġthe", "<|im_start|>", "你好"])],
  ["arr.empty", gguf.stringArray([])],
  ["arr.nested", gguf.arrayOfArrays([gguf.array("int32", new Int32Array([1, 2])), gguf.stringArray(["x"])])],
];

describe("GGUF writer → reader round trip", () => {
  it("keeps every metadata value type, value and key order", async () => {
    const path = join(dir, "values.gguf");
    await writeGguf(path, { metadata: new Map(EVERY_VALUE) });
    const file = await readGguf(path);
    expect(file.version).toBe(3);
    expect(file.tensors).toEqual([]);
    expect([...file.metadata.keys()]).toEqual(EVERY_VALUE.map(([k]) => k));
    for (const [key, value] of EVERY_VALUE) expect(file.metadata.get(key), key).toEqual(value);
    expect(ggufString(file.metadata, "str")).toBe('héllo {{ messages }} 🦙\n\t"quoted"');
    expect(ggufNumber(file.metadata, "u32.max")).toBe(0xffffffff);
    expect(ggufStringArray(file.metadata, "arr.str")).toHaveLength(5);
    expect(() => ggufString(file.metadata, "u8.max")).toThrow(/uint8, not a string/);
  });

  it("writes the same bytes when a read file is written back", async () => {
    const first = join(dir, "first.gguf");
    const second = join(dir, "second.gguf");
    await writeGguf(first, { metadata: new Map(EVERY_VALUE) });
    await writeGguf(second, { metadata: (await readGguf(first)).metadata });
    expect(Buffer.compare(await readFile(first), await readFile(second))).toBe(0);
  });

  const values = Float32Array.from({ length: 4 * 64 }, (_, i) => Math.sin(i * 0.37) * (1 + (i % 7)));
  const cases: { type: number; name: string; tolerance: (x: number, blockMax: number) => number }[] = [
    { type: GgmlType.F32, name: "f32", tolerance: () => 0 },
    { type: GgmlType.F16, name: "f16", tolerance: (x) => Math.abs(x) * 2 ** -11 + 2 ** -24 },
    { type: GgmlType.BF16, name: "bf16", tolerance: (x) => Math.abs(x) * 2 ** -8 },
    // Q8_0: half a quantisation step (amax/127/2) plus the f16 rounding of the scale.
    { type: GgmlType.Q8_0, name: "q8_0", tolerance: (_, m) => m / 254 + m * 2 ** -10 },
  ];

  it.each(cases)("stores $name tensors at aligned offsets and decodes them back", async ({ type, name, tolerance }) => {
    const path = join(dir, `tensor-${name}.gguf`);
    const tensors: GgufTensorSpec[] = [
      { name: "whole", shape: [64, 4], type, data: values },
      // Streamed in two chunks of two rows, through a generator.
      {
        name: "streamed",
        shape: [64, 2, 2],
        type,
        data: function* () {
          yield values.subarray(0, 128);
          yield values.subarray(128);
        },
      },
      { name: "vector", shape: [32], type: GgmlType.F32, data: new Float32Array(32).fill(1) },
    ];
    await writeGguf(path, { metadata: [["general.name", gguf.string(name)]], tensors });
    const file = await readGguf(path);
    expect(file.tensors.map((t) => [t.name, t.shape, t.typeName])).toEqual([
      ["whole", [64, 4], name],
      ["streamed", [64, 2, 2], name],
      ["vector", [32], "f32"],
    ]);
    for (const t of file.tensors) {
      expect(t.offset % 32).toBe(0);
      expect(t.fileOffset).toBe(file.dataOffset + t.offset);
    }
    for (const tensorName of ["whole", "streamed"]) {
      const decoded = decodeValues(type, await readTensorBytes(file, tensorName));
      expect(decoded).toHaveLength(values.length);
      for (let b = 0; b < values.length; b += 32) {
        const block = values.subarray(b, b + 32);
        const blockMax = Math.max(...block.map(Math.abs));
        for (let i = 0; i < 32; i++) {
          expect(Math.abs(decoded[b + i]! - block[i]!)).toBeLessThanOrEqual(tolerance(block[i]!, blockMax));
        }
      }
    }
    const last = file.tensors[2]!;
    expect((await stat(path)).size).toBe(last.fileOffset + last.byteSize);
  });

  it("honours a custom alignment and records it as general.alignment", async () => {
    const path = join(dir, "aligned.gguf");
    await writeGguf(path, {
      metadata: [["general.name", gguf.string("x")]],
      alignment: 256,
      tensors: [
        { name: "a", shape: [3], type: GgmlType.F32, data: new Float32Array([1, 2, 3]) },
        { name: "b", shape: [5], type: GgmlType.I32, data: new Uint8Array(20).fill(7) },
      ],
    });
    const file = await readGguf(path);
    expect(file.alignment).toBe(256);
    expect(file.metadata.get("general.alignment")).toEqual({ type: "uint32", value: 256 });
    expect(file.dataOffset % 256).toBe(0);
    expect(file.tensors[1]!.offset).toBe(256);
    expect([...(await readTensorBytes(file, "b"))]).toEqual(new Array(20).fill(7));
  });

  it("writes raw bytes of types it cannot encode (q4_0)", async () => {
    const path = join(dir, "raw.gguf");
    const raw = Uint8Array.from({ length: 2 * 18 }, (_, i) => i);
    await writeGguf(path, { metadata: [], tensors: [{ name: "q", shape: [64], type: GgmlType.Q4_0, data: raw }] });
    const file = await readGguf(path);
    expect(file.tensors[0]).toMatchObject({ typeName: "q4_0", byteSize: 36, elementCount: 64 });
    expect(await readTensorBytes(file, "q")).toEqual(raw);
  });
});

describe("f16 conversion", () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [65504, 0x7bff],
    [65520, 0x7c00], // rounds up to infinity
    [Infinity, 0x7c00],
    [2 ** -24, 0x0001], // smallest subnormal
    [2 ** -14, 0x0400], // smallest normal
    [1 + 2 ** -11, 0x3c00], // halfway: ties to even
    [1 + 3 * 2 ** -11, 0x3c02], // halfway: ties to even (up)
    [2 ** -26, 0x0000], // underflows to zero
    [-0, 0x8000],
  ])("%d → bits %i", (x, bits) => {
    expect(f32ToF16Bits(x)).toBe(bits);
  });

  it("round-trips every finite half value exactly", () => {
    const mismatches: number[] = [];
    for (let h = 0; h < 0x10000; h++) {
      if ((h & 0x7c00) === 0x7c00) continue; // inf / NaN
      if (f32ToF16Bits(f16BitsToF32(h)) !== h) mismatches.push(h);
    }
    expect(mismatches).toEqual([]);
  });

  it("q8_0 encodes a zero block as scale 0 and zeros", () => {
    expect([...encodeValues(GgmlType.Q8_0, new Float32Array(32))]).toEqual(new Array(34).fill(0));
  });
});

describe("writer validation", () => {
  const path = () => join(dir, `invalid-${Math.random().toString(36).slice(2)}.gguf`);
  const tensor = (over: Partial<GgufTensorSpec>): GgufTensorSpec => ({
    name: "t",
    shape: [32],
    type: GgmlType.F32,
    data: new Float32Array(32),
    ...over,
  });

  it.each<[string, GgufMetadata | [string, GgufValue][], RegExp]>([
    ["uint8 out of range", [["k", gguf.uint8(256)]], /uint8 must be an integer in \[0, 255\], got 256/],
    ["fractional int32", [["k", gguf.int32(1.5)]], /int32 must be an integer/],
    ["number as string", [["k", { type: "string", value: 5 } as unknown as GgufValue]], /expected a string, got 5/],
    [
      "wrong typed array",
      [["k", { type: "array", itemType: "int32", value: new Float32Array(1) } as unknown as GgufValue]],
      /expected a Int32Array/,
    ],
    ["unknown type", [["k", { type: "float16", value: 1 } as unknown as GgufValue]], /unknown value type "float16"/],
    ["number as uint64", [["k", { type: "uint64", value: 5 } as unknown as GgufValue]], /uint64 must be a bigint/],
    [
      "mixed string array",
      [["k", { type: "array", itemType: "string", value: ["a", 1] } as unknown as GgufValue]],
      /"k\[1\]": expected a string/,
    ],
    ["empty key", [["", gguf.uint8(1)]], /key must be a non-empty string/],
  ])("rejects metadata: %s", async (_, metadata, message) => {
    await expect(writeGguf(path(), { metadata })).rejects.toThrow(message);
  });

  it.each<[string, GgufTensorSpec[], RegExp]>([
    ["duplicate names", [tensor({}), tensor({})], /"t" is used twice/],
    ["name too long", [tensor({ name: "x".repeat(64) })], /1 to 63 bytes/],
    [
      "row not a block multiple",
      [tensor({ type: GgmlType.Q8_0, shape: [48] })],
      /not a multiple of the q8_0 block size 32/,
    ],
    ["five dimensions", [tensor({ shape: [32, 1, 1, 1, 1] })], /1 to 4 positive integers/],
    ["zero dimension", [tensor({ shape: [0] })], /1 to 4 positive integers/],
    ["unknown type", [tensor({ type: 4 })], /unknown ggml type 4/],
    ["too few values", [tensor({ data: new Float32Array(16) })], /data is 64 bytes, its shape and type need 128/],
    [
      "too many chunk bytes",
      [tensor({ data: () => [new Float32Array(32), new Float32Array(32)] })],
      /exceeds the 128 bytes/,
    ],
    [
      "values for an unencodable type",
      [tensor({ type: GgmlType.Q4_0, data: new Float32Array(32) })],
      /float values can be encoded as f32, f16, bf16 or q8_0, not q4_0/,
    ],
  ])("rejects tensors: %s, leaving no partial file", async (_, tensors, message) => {
    const p = path();
    await expect(writeGguf(p, { metadata: [], tensors })).rejects.toThrow(message);
    await expect(stat(p)).rejects.toThrow(/ENOENT/);
  });

  it("rejects an alignment that is not a power of two", async () => {
    await expect(writeGguf(path(), { metadata: [], alignment: 48 })).rejects.toThrow(RangeError);
  });
});
