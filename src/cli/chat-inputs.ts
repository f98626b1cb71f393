/**
 * The files `toolwright chat` reads: the tools (`--tools`), a chat template (`--template`) and a
 * JSON Schema for the answer (`--json-schema`). Each is checked before the model loads, and a
 * problem is an Error whose message names the file and what is wrong with it.
 *
 * @example
 * const tools = await readToolsFile("tools.json");
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { jsonSchemaToGbnf, SchemaError } from "../grammar/index.js";
import { ChatTemplate, TemplateSyntaxError } from "../template/index.js";
import type { JsonSchema, ResponseFormat, ToolDefinition } from "../types.js";

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new Error(`${what} ${path}: no such file`);
    if (err.code === "EISDIR") throw new Error(`${what} ${path}: is a directory`);
    throw new Error(`cannot read ${what} ${path}: ${err.message}`);
  }
}

async function readJson(path: string, what: string): Promise<unknown> {
  const text = await readText(path, what);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Whether the schema converts to a grammar; the error names where it fails. */
function checkSchema(schema: unknown, where: string): void {
  try {
    jsonSchemaToGbnf(schema as JsonSchema);
  } catch (e) {
    if (e instanceof SchemaError) throw new Error(`${where}: ${e.message}`);
    throw e;
  }
}

/**
 * Reads and checks an OpenAI `tools` array (or `{"tools": [...]}`): each tool's shape, unique
 * names, and parameters that are a JSON Schema the grammar can follow.
 *
 * @example
 * const tools = await readToolsFile("tools.json");
 */
export async function readToolsFile(path: string): Promise<ToolDefinition[]> {
  const data = await readJson(path, "tools file");
  const tools = Array.isArray(data) ? data : (data as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) throw new Error(`tools file ${path} must hold an array of tools (or {"tools": [...]})`);
  const names = new Set<string>();
  tools.forEach((tool: unknown, i) => {
    const t = tool as { type?: unknown; function?: { name?: unknown; parameters?: unknown } } | null;
    const where = `tools file ${path}: tools[${i}]`;
    if (t === null || typeof t !== "object") throw new Error(`${where} must be an object`);
    if (t.type !== "function") throw new Error(`${where}.type must be "function", got ${JSON.stringify(t.type)}`);
    if (t.function === null || typeof t.function !== "object") throw new Error(`${where}.function must be an object`);
    const name = t.function.name;
    if (typeof name !== "string" || name === "") throw new Error(`${where}.function.name must be a non-empty string`);
    if (names.has(name)) throw new Error(`${where}: a second tool named ${JSON.stringify(name)}`);
    names.add(name);
    const params = t.function.parameters;
    if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
      throw new Error(`${where}.function.parameters must be a JSON Schema object`);
    }
    if (params !== undefined) checkSchema(params, `${where}.function.parameters (${name})`);
  });
  return tools as ToolDefinition[];
}

/**
 * Reads a Jinja chat template and checks that it compiles.
 *
 * @example
 * const source = await readTemplateFile("chatml.jinja");
 */
export async function readTemplateFile(path: string): Promise<string> {
  const source = await readText(path, "template file");
  if (source.trim() === "") throw new Error(`template file ${path} is empty`);
  try {
    new ChatTemplate(source);
  } catch (e) {
    if (e instanceof TemplateSyntaxError) throw new Error(`template file ${path} does not compile: ${e.message}`);
    throw e;
  }
  return source;
}

/**
 * Reads a JSON Schema the answers must follow, as a `response_format`.
 *
 * @example
 * const responseFormat = await readJsonSchemaFile("answer.schema.json");
 */
export async function readJsonSchemaFile(path: string): Promise<ResponseFormat> {
  const schema = await readJson(path, "JSON Schema file");
  if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
    throw new Error(
      `JSON Schema file ${path} must hold a schema (an object), got ` +
        `${Array.isArray(schema) ? "an array" : JSON.stringify(schema)}`,
    );
  }
  checkSchema(schema, `JSON Schema file ${path}`);
  const name =
    basename(path)
      .replace(/\.(schema\.)?json$/i, "")
      .replace(/[^A-Za-z0-9_-]/g, "_") || "answer";
  return { type: "json_schema", json_schema: { name, schema: schema as JsonSchema } };
}

/**
 * Reads an image file for `--image` or `/image` (its bytes; decoding is the projector's job). The
 * error names the file.
 *
 * @example
 * const screenshot = await readImageFile("screen.png");
 */
export async function readImageFile(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "ENOENT") throw new Error(`image ${path}: no such file`);
    if (err.code === "EISDIR") throw new Error(`image ${path}: is a directory`);
    throw new Error(`cannot read image ${path}: ${err.message}`);
  }
}
