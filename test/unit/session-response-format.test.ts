import { describe, expect, test } from "vitest";
import * as z from "zod";
import { planChat } from "../../src/session/options.js";
import { ToolwrightError } from "../../src/errors.js";
import { checkResponseFormat } from "../../src/session/response-format.js";
import type { AssistantMessage, ResponseFormat } from "../../src/types.js";

// The check chat() runs on a finished answer: what the grammar could not make exact (here
// uniqueItems over strings, which a grammar cannot compare) is caught by validating the JSON.
const schema = {
  type: "object",
  properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
  required: ["tags"],
};
const jsonSchema: ResponseFormat = { type: "json_schema", json_schema: { schema } };
const answer = (content: string | null, calls = false): AssistantMessage => ({
  role: "assistant",
  content,
  ...(calls ? { tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] } : {}),
});

describe("checkResponseFormat", () => {
  test.each([
    ["valid JSON", jsonSchema, answer('{"tags": ["a", "b"]}')],
    ["valid JSON in a ```json fence", jsonSchema, answer('```json\n{"tags": []}\n```')],
    ["no responseFormat", undefined, answer("not json")],
    ["text format", { type: "text" } as ResponseFormat, answer("not json")],
    ["a turn that ended in tool calls", jsonSchema, answer(null, true)],
  ] as const)("%s: no error", (_, format, message) => {
    expect(checkResponseFormat(message, format)).toBeNull();
  });

  test.each([
    [
      "repeated items (a relaxation of the grammar)",
      jsonSchema,
      answer('{"tags": ["a", "a"]}'),
      /uniqueItems|duplicate/i,
      true,
    ],
    ["a missing required key", jsonSchema, answer("{}"), /tags/, true],
    ["an answer cut off", jsonSchema, answer('{"tags": ["a"'), /not JSON/, false],
    ["no content", jsonSchema, answer(null), /not JSON/, false],
    ["json_object that is an array", { type: "json_object" } as ResponseFormat, answer("[1]"), /object/, true],
    [
      "a 2020-12 keyword (dependentRequired)",
      {
        type: "json_schema",
        json_schema: {
          schema: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            dependentRequired: { card: ["billing"] },
          },
        },
      } as ResponseFormat,
      answer('{"card": 1}'),
      /billing/,
      true,
    ],
  ] as const)("%s: TOOLWRIGHT_RESPONSE_FORMAT", (_, format, message, pattern, hasDetails) => {
    const r = checkResponseFormat(message, format);
    expect(r?.error).toBeInstanceOf(ToolwrightError);
    expect(r?.error.code).toBe("TOOLWRIGHT_RESPONSE_FORMAT");
    expect(`${r?.error.message} ${JSON.stringify(r?.details ?? [])}`).toMatch(pattern);
    expect(r?.details !== undefined).toBe(hasDetails);
  });
});

describe("a schema library's object as the responseFormat schema (as tool parameters)", () => {
  const zodTags = z.object({ tags: z.array(z.string()).max(2) });
  const formats: [string, ResponseFormat][] = [
    ["json_schema", { type: "json_schema", json_schema: { schema: zodTags } }],
    ["json_object", { type: "json_object", schema: zodTags }],
  ];

  test.each(formats)("%s: the answer is checked against the library's JSON Schema export", (_, format) => {
    expect(checkResponseFormat(answer('{"tags": ["a", "b"]}'), format)).toBeNull();
    const tooMany = checkResponseFormat(answer('{"tags": ["a", "b", "c"]}'), format);
    expect(tooMany?.error.code).toBe("TOOLWRIGHT_RESPONSE_FORMAT");
    expect(tooMany?.details?.[0]).toMatchObject({ instancePath: "/tags", keyword: "maxItems" });
    expect(checkResponseFormat(answer('{"tags": "a"}'), format)?.details?.[0]).toMatchObject({
      instancePath: "/tags",
      keyword: "type",
    });
  });

  const messages = [{ role: "user" as const, content: "Hi" }];
  test.each([
    {
      name: "a library object without a JSON Schema export",
      responseFormat: {
        type: "json_schema",
        json_schema: { schema: { "~standard": { version: 1, vendor: "oldlib", validate: () => ({ value: {} }) } } },
      },
      error: /^chat: options.responseFormat.json_schema.schema is a oldlib schema without a JSON Schema export/,
    },
    {
      name: "a json_object schema that is a function",
      responseFormat: { type: "json_object", schema: () => 1 },
      error: new RegExp(
        /^chat: options.responseFormat.schema must be a JSON Schema object /.source +
          /\(or a zod or other Standard JSON Schema\), got a function$/.source,
      ),
    },
  ])("chat() options: $name is a TypeError naming the option", ({ responseFormat, error }) => {
    expect(() => planChat({ messages, responseFormat }, "chat")).toThrow(TypeError);
    expect(() => planChat({ messages, responseFormat }, "chat")).toThrow(error);
  });

  test("chat() options accept a zod schema in both formats", () => {
    for (const [, responseFormat] of formats)
      expect(planChat({ messages, responseFormat }, "chat").options.responseFormat).toBe(responseFormat);
  });
});
