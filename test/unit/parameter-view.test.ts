// A tool's parameters as formats that write one argument at a time see them: a root $ref, allOf and a root
// union (Pydantic's shapes) become one object schema; the branch a call's discriminator names types its values.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChatTemplate } from "../../src/template/index.js";
import { analyzeChatTemplate, generateChatParams, parseChatOutput } from "../../src/chat/index.js";
import {
  chosenBranch,
  flatParameters,
  mergeAllOf,
  viewProperties,
  viewRequired,
} from "../../src/chat/parameter-view.js";
import type { JsonSchema, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const TEXT_OR_COUNT: JsonSchema = {
  oneOf: [
    { type: "object", properties: { kind: { const: "text" }, value: { type: "string" } }, required: ["kind"] },
    { type: "object", properties: { kind: { const: "count" }, value: { type: "integer" } }, required: ["kind"] },
  ],
};
const ROOT_REF: JsonSchema = {
  $defs: {
    Args: { type: "object", properties: { city: { $ref: "#/$defs/City" } }, required: ["city"] },
    City: { type: "string", minLength: 1 },
  },
  $ref: "#/$defs/Args",
};

describe("parameter view", () => {
  it.each([
    { name: "a plain object schema", schema: { properties: { a: { type: "string" } } }, keys: ["a"], required: [] },
    { name: "a root $ref, its own $refs inlined", schema: ROOT_REF, keys: ["city"], required: ["city"] },
    {
      name: "root allOf branches, properties and required joined",
      schema: { allOf: [{ properties: { a: {} }, required: ["a"] }, { properties: { b: {} } }] },
      keys: ["a", "b"],
      required: ["a"],
    },
    {
      name: "a root union's branches, required where every branch requires",
      schema: TEXT_OR_COUNT,
      keys: ["kind", "value"],
      required: ["kind"],
    },
    {
      name: "a $ref cycle",
      schema: { $defs: { c: { $ref: "#/$defs/c" } }, $ref: "#/$defs/c" },
      keys: [],
      required: [],
    },
    {
      name: "an allOf that refers back to its root",
      schema: { allOf: [{ $ref: "#" }], properties: { a: {} } },
      keys: ["a"],
      required: [],
    },
    {
      name: "a root's own properties and required beside a union",
      schema: { properties: { q: {} }, required: ["q"], oneOf: [{ properties: { m: {} }, required: ["m"] }] },
      keys: ["q", "m"],
      required: ["q", "m"],
    },
  ])("$name", ({ schema, keys, required }) => {
    expect(viewProperties(schema as JsonSchema).map(([k]) => k)).toEqual(keys);
    expect(viewRequired(schema as JsonSchema)).toEqual(required);
  });

  it("inlines a property's $ref against the root", () => {
    expect(viewProperties(ROOT_REF)).toEqual([["city", { type: "string", minLength: 1 }]]);
  });

  it("joins a property that branches declare differently as the anyOf of its schemas", () => {
    const flat = flatParameters(TEXT_OR_COUNT) as { properties: Record<string, unknown> };
    expect(flat.properties.value).toEqual({ anyOf: [{ type: "string" }, { type: "integer" }] });
    expect(flat.properties.kind).toEqual({ anyOf: [{ const: "text" }, { const: "count" }] });
  });

  it.each([
    { allOf: [{ type: ["integer", "string"] }, { type: "integer" }], want: { type: "integer" } },
    { allOf: [{ type: "number" }, { type: "integer" }], want: { type: "integer" } },
    { allOf: [{ description: "n" }, { minimum: 1 }], want: { description: "n", minimum: 1 } },
    { allOf: [{ type: "string" }, { type: "integer" }], want: { type: "integer" } },
    { allOf: [{ type: "integer" }, { type: "number" }], want: { type: "integer" } },
  ])("merges allOf %#", ({ allOf, want }) => {
    expect(mergeAllOf({ allOf } as JsonSchema)).toEqual(want);
  });

  it.each([
    { args: { kind: "count", value: 7 }, want: "count" },
    { args: { value: 7, kind: "text" }, want: "text" },
    { args: { kind: "other" }, want: null },
    { args: { value: 7 }, want: null },
  ])("chooses the branch the discriminator names: $args", ({ args, want }) => {
    const branch = chosenBranch(TEXT_OR_COUNT, args);
    const kind = branch === null ? null : (branch.properties as { kind: { const: string } }).kind.const;
    expect(kind).toBe(want);
  });
});

describe("a branch is chosen only where the discriminator tells the branches apart", () => {
  it("an enum both branches share chooses none", () => {
    const unit = { enum: ["c", "f"] };
    const schema: JsonSchema = {
      oneOf: [
        { properties: { unit, kind: { const: "a" }, value: { type: "string" } } },
        { properties: { unit, kind: { const: "b" }, value: { type: "integer" } } },
      ],
    };
    expect(chosenBranch(schema, { unit: "c", value: 7 })).toBeNull();
    expect(chosenBranch(schema, { unit: "c", kind: "b" })).not.toBeNull();
  });
});

describe("parsed calls typed by the parameter view", () => {
  const tool = (name: string, parameters: JsonSchema): ToolDefinition => ({
    type: "function",
    function: { name, parameters },
  });
  const tools = [
    tool("inspect", TEXT_OR_COUNT),
    tool("weather", ROOT_REF),
    tool("count", {
      type: "object",
      properties: { n: { allOf: [{ type: ["integer", "string"] }, { type: "integer" }] } },
    }),
    tool("mixed", { properties: { count: { type: "integer" } }, ...(TEXT_OR_COUNT as object) }),
  ];
  const parse = (template: string, output: string): [string, unknown][] => {
    const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
    const t = new ChatTemplate(source, { compat: "auto" });
    const params = generateChatParams(analyzeChatTemplate(source, { template: t }), t, {
      messages: [{ role: "user", content: "Help" }],
      tools,
    });
    const message = parseChatOutput(params, output);
    return (message.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]);
  };
  const glm = (name: string, args: [string, string][]): string =>
    `</think><tool_call>${name}${args.map(([k, v]) => `<arg_key>${k}</arg_key><arg_value>${v}</arg_value>`).join("")}` +
    "</tool_call>";

  it.each([
    {
      output: glm("inspect", [
        ["kind", "text"],
        ["value", "7"],
      ]),
      want: ["inspect", { kind: "text", value: "7" }],
    },
    {
      output: glm("inspect", [
        ["value", "7"],
        ["kind", "count"],
      ]),
      want: ["inspect", { value: 7, kind: "count" }],
    },
    { output: glm("weather", [["city", "null"]]), want: ["weather", { city: "null" }] },
    { output: glm("count", [["n", "7"]]), want: ["count", { n: 7 }] },
  ])("GLM: $output", ({ output, want }) => {
    expect(parse("GLM-4.7-Flash.jinja", output)).toEqual([want]);
  });

  it("a property declared beside the union is typed when a branch is chosen", () => {
    const output = glm("mixed", [
      ["kind", "text"],
      ["count", "5"],
      ["value", "1.50"],
    ]);
    expect(parse("GLM-4.7-Flash.jinja", output)).toEqual([["mixed", { kind: "text", count: 5, value: "1.50" }]]);
  });

  it("JSON calls keep the values the model wrote (null stays null)", () => {
    const output = '<tool_call>\n{"name": "inspect", "arguments": {"kind": "text", "value": null}}\n</tool_call>';
    expect(parse("Qwen-Qwen2.5-7B-Instruct.jinja", output)).toEqual([["inspect", { kind: "text", value: null }]]);
  });

  it("Qwen3-Coder: a root union's values typed by the branch", () => {
    const output =
      "<tool_call>\n<function=inspect>\n<parameter=kind>\ncount\n</parameter>\n<parameter=value>\n7\n</parameter>\n" +
      "</function>\n</tool_call>";
    expect(parse("Qwen3-Coder.jinja", output)).toEqual([["inspect", { kind: "count", value: 7 }]]);
  });
});
