/**
 * Shared OpenAI-shaped data types used across toolwright's layers (template rendering,
 * analysis, parsing, chat). Kept in one place so every layer speaks the same shapes.
 *
 * @example
 * const messages: ChatMessage[] = [
 *   { role: "system", content: "You are terse." },
 *   { role: "user", content: "Weather in Paris?" },
 * ];
 */

/** A JSON value as produced by `JSON.parse`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema document (draft 2020-12 / draft-07 subset), kept loose on purpose. */
export type JsonSchema = boolean | { [key: string]: unknown };

/**
 * A schema library's object (zod >= 4.2, ArkType, Valibot's `toStandardJsonSchema`, …): the part of
 * the Standard Schema / Standard JSON Schema interfaces (standardschema.dev) toolwright uses. Tool
 * parameters and `responseFormat` schemas may be one; its JSON Schema export (of its input) is used.
 *
 * @example
 * const schema: StandardSchemaLike = z.object({ city: z.string() }); // zod 4.2 or later
 */
export interface StandardSchemaLike {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate?: (value: unknown) => StandardResult | Promise<StandardResult>;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
    readonly types?: { readonly input: unknown; readonly output: unknown } | undefined;
  };
}

/** What a Standard Schema's `validate` returns. */
export type StandardResult =
  | { readonly value: unknown; readonly issues?: undefined }
  | {
      readonly issues: ReadonlyArray<{
        readonly message: string;
        readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
      }>;
    };

/** One call the assistant made, in OpenAI's shape. `arguments` is a JSON string. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  /**
   * The call was not finished (a message from elsewhere may say so): the tool runner never executes
   * it. toolwright's own parser returns no such call: a call the output stops inside is content.
   */
  incomplete?: true;
}

/** A part of multi-part content (OpenAI's `content: [{type: "text", text}]`). */
export interface ContentPart {
  type: "text";
  text: string;
}

export interface SystemMessage {
  role: "system" | "developer";
  content: string | ContentPart[];
}

/**
 * An image in a user message, as OpenAI sends one: `url` is a data URL (`data:image/png;base64,…`),
 * a file path or a `file:` URL. The model must have a projector (`loadModel`'s `projector`).
 *
 * @example
 * const part: ImageUrlPart = { type: "image_url", image_url: { url: "./screenshot.png" } };
 */
export interface ImageUrlPart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}

/**
 * An image already in memory (an encoded PNG, JPEG, BMP or GIF file) in a user message.
 *
 * @example
 * const part: ImagePart = { type: "image", image: await readFile("screenshot.png") };
 */
export interface ImagePart {
  type: "image";
  image: Uint8Array;
}

export interface UserMessage {
  role: "user";
  content: string | (ContentPart | ImageUrlPart | ImagePart)[];
}

export interface AssistantMessage {
  role: "assistant";
  content: string | ContentPart[] | null;
  /** Reasoning ("thinking") text, as OpenAI-compatible servers return it. */
  reasoning_content?: string | null;
  tool_calls?: ToolCall[];
}

export interface ToolMessage {
  role: "tool";
  content: string | ContentPart[];
  /** The id of the call this answers (required, as OpenAI requires it). */
  tool_call_id: string;
  /** Some templates want the tool's name on its result. */
  name?: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A function the model may call, in OpenAI's `tools` shape. */
export interface FunctionDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: JsonSchema;
  /** null: not set (OpenAI's SDK types allow it). */
  strict?: boolean | null;
}

export interface ToolDefinition {
  type: "function";
  function: FunctionDefinition;
}

/** OpenAI's `tool_choice`. */
export type ToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

/**
 * OpenAI's `response_format`. As with tool parameters, the schema may be JSON Schema or a schema
 * library's object ({@link StandardSchemaLike}: zod >= 4.2, …), converted with the library's own
 * JSON Schema export.
 */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object"; schema?: JsonSchema | StandardSchemaLike }
  | { type: "json_schema"; json_schema: { name?: string; schema: JsonSchema | StandardSchemaLike; strict?: boolean } };
