import type { ChatMessage, ToolDefinition } from "../types.js";

/**
 * What a chat request asks a template to render.
 *
 * @example
 * const input: RenderInput = { messages: [{ role: "user", content: "Hi" }], addGenerationPrompt: true };
 */
export interface RenderInput {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  /** Append the assistant-turn opener at the end (default true). */
  addGenerationPrompt?: boolean;
  /** Sets the `enable_thinking` template variable when given. */
  enableThinking?: boolean;
  /** Extra template variables (e.g. `reasoning_effort`), merged last. */
  extraContext?: Record<string, unknown>;
}

/**
 * What a template can do, detected by rendering probe conversations (as llama.cpp's caps do).
 *
 * @example
 * if (!tpl.caps.supportsSystemRole) console.log("system prompt gets folded into the first user turn");
 */
export interface TemplateCaps {
  /** The template renders the `tools` it is offered. */
  supportsTools: boolean;
  /** The template renders assistant `tool_calls` in history. */
  supportsToolCalls: boolean;
  /** A second call in one assistant turn is rendered too. */
  supportsParallelToolCalls: boolean;
  /** A `system` message is rendered (not refused or dropped). */
  supportsSystemRole: boolean;
  /** Plain string `content` renders. */
  supportsStringContent: boolean;
  /** `[{type:"text", text}]` content is read as parts. */
  supportsTypedContent: boolean;
  /** String content fails but typed content works: callers must send parts. */
  requiresTypedContent: boolean;
  /** Tool-call `arguments` are read as an object (keys accessed). */
  supportsObjectArguments: boolean;
  /** Arguments must be objects: the JSON-string form fails or is not rendered. */
  requiresObjectArguments: boolean;
  /** `reasoning_content` of earlier assistant turns is kept in the rendered history. */
  supportsPreserveReasoning: boolean;
  /** The template reads `reasoning_effort`. */
  supportsReasoningEffort: boolean;
  /** The template reads `enable_thinking`. */
  supportsEnableThinking: boolean;
}

/**
 * Options for {@link ChatTemplate}.
 *
 * @example
 * const options: ChatTemplateOptions = { bosToken: "<s>", eosToken: "</s>", now: () => new Date(2025, 0, 15) };
 */
export interface ChatTemplateOptions {
  /** Value of `bos_token` (default ""). */
  bosToken?: string;
  /** Value of `eos_token` (default ""). */
  eosToken?: string;
  /** Clock for `strftime_now` (default: the system clock). */
  now?: () => Date;
  /**
   * Let templates call list.append, dict.update and other mutating methods, which transformers'
   * immutable sandbox refuses (default false: byte-identical to transformers). Some templates
   * written for llama.cpp (Kimi-K2) need it to render tool calls at all. `compat: "lenient"`
   * (or "auto") includes this and llama.cpp's other relaxations.
   */
  allowMutation?: boolean;
  /**
   * How strictly to follow Python Jinja2 (default "strict"). "strict": exactly transformers'
   * rules, byte for byte. "lenient": also llama.cpp's relaxations (src/template/compat.ts), each
   * only where strict raises. "auto": strict, and a render that strict refuses with an error some
   * relaxation addresses (never the template's own raise_exception) is rendered leniently;
   * capability probes follow the same rule. Use "auto" to render every template llama.cpp renders.
   */
  compat?: CompatMode;
}

/**
 * {@link ChatTemplateOptions.compat}: "strict" | "lenient" | "auto".
 *
 * @example
 * const tpl = new ChatTemplate(source, { compat: "auto" satisfies CompatMode });
 */
export type CompatMode = "strict" | "lenient" | "auto";

/**
 * The rules one render actually followed.
 *
 * @example
 * const { text, mode } = tpl.renderRawWithMode(context); // mode: "strict" | "lenient"
 */
export type RenderMode = "strict" | "lenient";

/**
 * A rendering and the rules that produced it.
 *
 * @example
 * const r: RenderResult = tpl.renderRawWithMode({ messages });
 * if (r.mode === "lenient") console.warn("rendered with llama.cpp's relaxations");
 */
export interface RenderResult {
  text: string;
  mode: RenderMode;
}
