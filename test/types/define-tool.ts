// Type-level tests of defineTool: what `execute` receives for each kind of schema. Each
// `@ts-expect-error` line asserts an error; the test project fails if one does not occur.
import { type ChatTool, type JsonSchema, type ToolArguments, defineTool, loadModel } from "toolwright";
import * as z from "zod";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_: T): void => undefined;

// A JSON Schema literal: inferred as written (no `as const`).
const weather = defineTool({
  name: "get_weather",
  description: "Current weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string", maxLength: 40 }, unit: { enum: ["c", "f"] }, days: { type: "integer" } },
    required: ["city"],
  },
  execute: async ({ city, unit, days }) => {
    assertType<Equal<typeof city, string>>(true);
    assertType<Equal<typeof unit, "c" | "f" | undefined>>(true);
    assertType<Equal<typeof days, number | undefined>>(true);
    // @ts-expect-error city is a string
    const n: number = city;
    return { city, n };
  },
});
const asTool: ChatTool = weather; // a typed tool is a ChatTool
void asTool;

defineTool({
  name: "f",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  // @ts-expect-error no property `town` in the schema
  execute: async ({ town }) => town,
});

// Types, unions, arrays, nested objects, const, nullable.
type Args = ToolArguments<{
  type: "object";
  properties: {
    tags: { type: "array"; items: { type: "string" } };
    at: { type: "object"; properties: { lat: { type: "number" }; lon: { type: "number" } }; required: ["lat", "lon"] };
    note: { type: ["string", "null"] };
    kind: { const: "point" };
    either: { anyOf: [{ type: "integer" }, { type: "boolean" }] };
    free: { type: "object" };
  };
  required: ["tags", "at", "note", "kind", "either", "free"];
}>;
assertType<
  Equal<
    Args,
    {
      tags: string[];
      at: { lat: number; lon: number };
      note: string | null;
      kind: "point";
      either: number | boolean;
      free: { [key: string]: unknown };
    }
  >
>(true);

// additionalProperties: only with a schema that allows more do other keys appear in the type.
assertType<
  Equal<ToolArguments<{ type: "object"; properties: { a: { type: "string" } }; required: ["a"] }>, { a: string }>
>(true);
assertType<
  Equal<
    ToolArguments<{
      type: "object";
      properties: { a: { type: "string" } };
      required: ["a"];
      additionalProperties: true;
    }>,
    { a: string; [key: string]: unknown }
  >
>(true);

// A zod schema: the execute argument is the schema's output type (defaults applied).
defineTool({
  name: "get_weather",
  parameters: z.object({ city: z.string().max(40), unit: z.enum(["c", "f"]).default("c") }),
  strict: true,
  execute: async ({ city, unit }) => {
    assertType<Equal<typeof city, string>>(true);
    assertType<Equal<typeof unit, "c" | "f">>(true);
    return `${city} ${unit}`;
  },
});

defineTool({
  name: "f",
  parameters: z.object({ city: z.string() }),
  // @ts-expect-error no property `town` in the zod schema
  execute: ({ town }) => town,
});

// @ts-expect-error parameters is required
defineTool({ name: "f", execute: () => 1 });

// @ts-expect-error strict is a boolean
defineTool({ name: "f", parameters: { type: "object" }, strict: "yes" });

// A typed tool goes into chat() beside plain ones.
export async function run(): Promise<void> {
  const model = await loadModel("model.gguf");
  const plain: ChatTool = { type: "function", function: { name: "noop", parameters: { type: "object" } } };
  await model.chat({ messages: [{ role: "user", content: "Hi" }], tools: [weather, plain] });
}

// A schema declared beforehand: `as const` keeps its literal types; a wide JsonSchema gives unknown.
const declared = { type: "object", properties: { n: { type: "number" } }, required: ["n"] } as const;
defineTool({ name: "f", parameters: declared, execute: ({ n }) => assertType<Equal<typeof n, number>>(true) });
const wide: JsonSchema = { type: "object" };
defineTool({ name: "f", parameters: wide, execute: (args) => assertType<Equal<typeof args, unknown>>(true) });
