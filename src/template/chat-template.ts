import { compileTemplate, type CompiledTemplate } from "./engine.js";
import { detectCaps, type ProbeRunner } from "./caps.js";
import { polyfillMessages } from "./polyfills.js";
import type { ChatTemplateOptions, RenderInput, TemplateCaps } from "./types.js";

/**
 * A model's Jinja chat template, parsed once and rendered the way Hugging Face transformers
 * renders it (Python Jinja2 semantics, byte for byte).
 *
 * @example
 * const tpl = new ChatTemplate(source, { bosToken: "<s>", eosToken: "</s>" });
 * const prompt = tpl.render({ messages: [{ role: "user", content: "Hi" }], addGenerationPrompt: true });
 */
export class ChatTemplate {
  readonly source: string;
  readonly #compiled: CompiledTemplate;
  readonly #bosToken: string;
  readonly #eosToken: string;
  #caps: TemplateCaps | undefined;

  constructor(source: string, options: ChatTemplateOptions = {}) {
    if (typeof source !== "string") {
      throw new TypeError(`ChatTemplate: source must be a string, got ${source === null ? "null" : typeof source}`);
    }
    if (options === null || typeof options !== "object") {
      throw new TypeError(`ChatTemplate: options must be an object, got ${options === null ? "null" : typeof options}`);
    }
    const { bosToken = "", eosToken = "", now = () => new Date() } = options;
    if (typeof bosToken !== "string") throw new TypeError(`ChatTemplate: options.bosToken must be a string, got ${typeof bosToken}`);
    if (typeof eosToken !== "string") throw new TypeError(`ChatTemplate: options.eosToken must be a string, got ${typeof eosToken}`);
    if (typeof now !== "function") throw new TypeError(`ChatTemplate: options.now must be a function, got ${typeof now}`);
    this.source = source;
    this.#bosToken = bosToken;
    this.#eosToken = eosToken;
    this.#compiled = compileTemplate(source, now);
  }

  /** Detected capabilities (computed on first access by rendering probe conversations). */
  get caps(): TemplateCaps {
    this.#caps ??= detectCaps(this.#probeRunner());
    return this.#caps;
  }

  /**
   * Renders a chat request: applies the input polyfills the caps call for, then renders.
   * Throws TemplateError when the template refuses the conversation (its own message).
   */
  render(input: RenderInput): string {
    if (input === null || typeof input !== "object") throw new TypeError(`ChatTemplate.render: input must be an object, got ${input === null ? "null" : typeof input}`);
    if (!Array.isArray(input.messages)) throw new TypeError(`ChatTemplate.render: input.messages must be an array, got ${typeof input.messages}`);
    if (input.tools !== undefined && !Array.isArray(input.tools)) throw new TypeError(`ChatTemplate.render: input.tools must be an array when given, got ${typeof input.tools}`);
    const context: Record<string, unknown> = {
      messages: polyfillMessages(input.messages, this.caps),
      tools: input.tools && input.tools.length > 0 ? input.tools : null,
      documents: null,
      add_generation_prompt: input.addGenerationPrompt ?? true,
    };
    if (input.enableThinking !== undefined) context.enable_thinking = input.enableThinking;
    Object.assign(context, input.extraContext);
    return this.renderRaw(context);
  }

  /**
   * Renders exactly `context` (plus bos_token/eos_token when the context lacks them), with no
   * polyfills: what transformers' apply_chat_template passes to Jinja2.
   */
  renderRaw(context: Record<string, unknown>): string {
    if (context === null || typeof context !== "object") throw new TypeError(`ChatTemplate.renderRaw: context must be an object, got ${context === null ? "null" : typeof context}`);
    const full = { bos_token: this.#bosToken, eos_token: this.#eosToken, ...context };
    return this.#compiled.render(full);
  }

  #probeRunner(): ProbeRunner {
    return (context) => {
      const r = this.#compiled.renderTracked(context);
      const resolve = (v: unknown): unknown => (v !== null && typeof v === "object" ? r.track.get(v) : v);
      return {
        ok: r.ok,
        output: r.output,
        used: (v, op) => r.stats.used(resolve(v), op),
        readVar: (name) => r.stats.readsVar(name),
      };
    };
  }
}
