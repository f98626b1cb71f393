import { compileTemplate, type CompiledTemplate } from "./engine.js";
import { detectCaps, type ProbeRunner } from "./caps.js";
import { polyfillMessages } from "./polyfills.js";
import type { ChatTemplateOptions, RenderInput, TemplateCaps } from "./types.js";

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/**
 * A model's Jinja chat template, parsed once and rendered the way Hugging Face transformers
 * renders it (Python Jinja2 semantics in transformers' sandbox, byte for byte).
 *
 * @example
 * const tpl = new ChatTemplate(source, { bosToken: "<s>", eosToken: "</s>" });
 * const prompt = tpl.render({ messages: [{ role: "user", content: "Hi" }], addGenerationPrompt: true });
 * if (!tpl.caps.supportsSystemRole) console.log("system prompts get folded into the first user turn");
 */
export class ChatTemplate {
  /** The template source as given. */
  readonly source: string;
  readonly #compiled: CompiledTemplate;
  readonly #bosToken: string;
  readonly #eosToken: string;
  readonly #handlesDeveloperRole: boolean;
  #caps: TemplateCaps | undefined;

  /** Parses `source` once; throws TemplateSyntaxError when it does not compile. */
  constructor(source: string, options: ChatTemplateOptions = {}) {
    if (typeof source !== "string") throw new TypeError(`ChatTemplate: source must be a string, got ${kind(source)}`);
    if (options === null || typeof options !== "object") {
      throw new TypeError(`ChatTemplate: options must be an object, got ${kind(options)}`);
    }
    const { bosToken = "", eosToken = "", now = () => new Date(), allowMutation = false } = options;
    if (typeof bosToken !== "string") throw new TypeError(`ChatTemplate: options.bosToken must be a string, got ${kind(bosToken)}`);
    if (typeof eosToken !== "string") throw new TypeError(`ChatTemplate: options.eosToken must be a string, got ${kind(eosToken)}`);
    if (typeof now !== "function") throw new TypeError(`ChatTemplate: options.now must be a function, got ${kind(now)}`);
    if (typeof allowMutation !== "boolean") {
      throw new TypeError(`ChatTemplate: options.allowMutation must be a boolean, got ${kind(allowMutation)}`);
    }
    this.source = source;
    this.#bosToken = bosToken;
    this.#eosToken = eosToken;
    this.#handlesDeveloperRole = /["']developer["']/.test(source);
    this.#compiled = compileTemplate(source, now, allowMutation);
  }

  /**
   * What the template can do, detected on first access by rendering probe conversations.
   *
   * @example
   * const { supportsTools, supportsParallelToolCalls } = tpl.caps;
   */
  get caps(): TemplateCaps {
    this.#caps ??= detectCaps(this.#probeRunner());
    return this.#caps;
  }

  /**
   * Renders a chat request: applies the input polyfills the caps call for, then renders.
   * Throws TemplateError (with the template's own message) when the template refuses the
   * conversation, TemplateRuntimeError when rendering fails the way Python Jinja2 fails.
   *
   * @example
   * tpl.render({ messages, tools, addGenerationPrompt: true, enableThinking: false });
   */
  render(input: RenderInput): string {
    if (input === null || typeof input !== "object") throw new TypeError(`ChatTemplate.render: input must be an object, got ${kind(input)}`);
    const { messages, tools, addGenerationPrompt = true, enableThinking, extraContext } = input;
    if (!Array.isArray(messages)) throw new TypeError(`ChatTemplate.render: input.messages must be an array, got ${kind(messages)}`);
    if (tools !== undefined && !Array.isArray(tools)) {
      throw new TypeError(`ChatTemplate.render: input.tools must be an array when given, got ${kind(tools)}`);
    }
    if (typeof addGenerationPrompt !== "boolean") {
      throw new TypeError(`ChatTemplate.render: input.addGenerationPrompt must be a boolean, got ${kind(addGenerationPrompt)}`);
    }
    if (enableThinking !== undefined && typeof enableThinking !== "boolean") {
      throw new TypeError(`ChatTemplate.render: input.enableThinking must be a boolean, got ${kind(enableThinking)}`);
    }
    if (extraContext !== undefined && (extraContext === null || typeof extraContext !== "object" || Array.isArray(extraContext))) {
      throw new TypeError(`ChatTemplate.render: input.extraContext must be an object, got ${kind(extraContext)}`);
    }
    const context: Record<string, unknown> = {
      messages: polyfillMessages(messages, this.caps, { handlesDeveloperRole: this.#handlesDeveloperRole }),
      // transformers passes None, not an empty list, when there are no tools.
      tools: tools && tools.length > 0 ? tools : null,
      documents: null,
      add_generation_prompt: addGenerationPrompt,
    };
    if (enableThinking !== undefined) context.enable_thinking = enableThinking;
    Object.assign(context, extraContext);
    return this.renderRaw(context);
  }

  /**
   * Renders exactly `context` with no polyfills (what transformers' apply_chat_template passes
   * to Jinja2); `bos_token`/`eos_token` come from the options unless the context sets them.
   *
   * @example
   * tpl.renderRaw({ messages: [{ role: "user", content: "Hi" }], tools: null, add_generation_prompt: true });
   */
  renderRaw(context: Record<string, unknown>): string {
    if (context === null || typeof context !== "object" || Array.isArray(context)) {
      throw new TypeError(`ChatTemplate.renderRaw: context must be an object, got ${kind(context)}`);
    }
    return this.#compiled.render({ bos_token: this.#bosToken, eos_token: this.#eosToken, ...context });
  }

  #probeRunner(): ProbeRunner {
    return (context) => {
      const r = this.#compiled.renderTracked(context);
      const resolve = (v: unknown): unknown => (v !== null && typeof v === "object" ? r.track.get(v) : v);
      return {
        ok: r.ok,
        output: r.output,
        used: (v, op) => r.stats.used(resolve(v), op),
        usedMember: (obj, key) => r.stats.usedMember(resolve(obj), key),
        readVar: (name) => r.stats.readsVar(name),
      };
    };
  }
}
