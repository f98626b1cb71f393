import { compileTemplate, type CompiledTemplate, type TrackedRender } from "./engine.js";
import { detectCaps, type ProbeRunner } from "./caps.js";
import { checkKeys } from "../validate/index.js";
import { isRelaxable } from "./compat.js";
import { TemplateError } from "./errors.js";
import { withSharedBudget } from "./limits.js";
import { polyfillMessages } from "./polyfills.js";
import type { ChatTemplateOptions, CompatMode, RenderInput, RenderMode, RenderResult, TemplateCaps } from "./types.js";

const COMPAT_MODES: readonly CompatMode[] = ["strict", "lenient", "auto"];

function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

/**
 * A model's Jinja chat template, parsed once and rendered the way Hugging Face transformers
 * renders it (Python Jinja2 semantics in transformers' sandbox, byte for byte). With
 * `compat: "auto"` it also renders, with llama.cpp's relaxations, what that sandbox refuses.
 *
 * @example
 * const tpl = new ChatTemplate(source, { bosToken: "<s>", eosToken: "</s>" });
 * const prompt = tpl.render({ messages: [{ role: "user", content: "Hi" }], addGenerationPrompt: true });
 * if (!tpl.caps.supportsSystemRole) console.log("system prompts get folded into the first user turn");
 * const kimi = new ChatTemplate(kimiSource, { compat: "auto" }); // its list.append now works
 */
export class ChatTemplate {
  /** The template source as given. */
  readonly source: string;
  /** The compatibility mode it was created with (see {@link ChatTemplateOptions.compat}). */
  readonly compat: CompatMode;
  readonly #compiled: CompiledTemplate;
  readonly #bosToken: string;
  readonly #eosToken: string;
  readonly #handlesDeveloperRole: boolean;
  #caps: TemplateCaps | undefined;
  #capsMode: RenderMode = "strict";

  /** Parses `source` once; throws TemplateSyntaxError when it does not compile. */
  constructor(source: string, options: ChatTemplateOptions = {}) {
    if (typeof source !== "string") throw new TypeError(`ChatTemplate: source must be a string, got ${kind(source)}`);
    if (options === null || typeof options !== "object") {
      throw new TypeError(`ChatTemplate: options must be an object, got ${kind(options)}`);
    }
    checkKeys(
      options as Record<string, unknown>,
      ["bosToken", "eosToken", "now", "allowMutation", "compat"],
      "ChatTemplate: options",
    );
    const { bosToken = "", eosToken = "", now = () => new Date(), allowMutation = false, compat = "strict" } = options;
    if (typeof bosToken !== "string")
      throw new TypeError(`ChatTemplate: options.bosToken must be a string, got ${kind(bosToken)}`);
    if (typeof eosToken !== "string")
      throw new TypeError(`ChatTemplate: options.eosToken must be a string, got ${kind(eosToken)}`);
    if (typeof now !== "function")
      throw new TypeError(`ChatTemplate: options.now must be a function, got ${kind(now)}`);
    if (typeof allowMutation !== "boolean") {
      throw new TypeError(`ChatTemplate: options.allowMutation must be a boolean, got ${kind(allowMutation)}`);
    }
    if (!COMPAT_MODES.includes(compat)) {
      throw new TypeError(
        `ChatTemplate: options.compat must be "strict", "lenient" or "auto", got ` +
          `${JSON.stringify(compat) ?? kind(compat)}`,
      );
    }
    this.source = source;
    this.compat = compat;
    this.#bosToken = bosToken;
    this.#eosToken = eosToken;
    this.#handlesDeveloperRole = /["']developer["']/.test(source);
    this.#compiled = compileTemplate(source, now, allowMutation);
  }

  /** The `eos_token` the template renders (the model's end-of-sequence text; "" when not given). */
  get eosToken(): string {
    return this.#eosToken;
  }

  /**
   * What the template can do, detected on first access by rendering probe conversations.
   *
   * @example
   * const { supportsTools, supportsParallelToolCalls } = tpl.caps;
   */
  get caps(): TemplateCaps {
    // The probes share one budget: a hostile template costs one render's budget, not one per probe.
    this.#caps ??= withSharedBudget(() => detectCaps(this.#probeRunner()));
    return this.#caps;
  }

  /**
   * "lenient" when some capability probe rendered leniently (always for compat "lenient"; for
   * "auto", when strict refused one), else "strict". Detects the caps if not done yet.
   *
   * @example
   * new ChatTemplate(kimiSource, { compat: "auto" }).capsRenderMode; // "lenient"
   */
  get capsRenderMode(): RenderMode {
    void this.caps;
    return this.#capsMode;
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
    return this.renderRaw(this.#renderContext(input, "ChatTemplate.render"));
  }

  /**
   * {@link render}, also saying whether the rendering needed lenient rules.
   *
   * @example
   * const { text, mode } = tpl.renderWithMode({ messages, tools });
   */
  renderWithMode(input: RenderInput): RenderResult {
    return this.renderRawWithMode(this.#renderContext(input, "ChatTemplate.renderWithMode"));
  }

  #renderContext(input: RenderInput, where: string): Record<string, unknown> {
    if (input === null || typeof input !== "object")
      throw new TypeError(`${where}: input must be an object, got ${kind(input)}`);
    checkKeys(
      input as unknown as Record<string, unknown>,
      ["messages", "tools", "addGenerationPrompt", "enableThinking", "extraContext"],
      `${where}: input`,
    );
    const { messages, tools, addGenerationPrompt = true, enableThinking, extraContext } = input;
    if (!Array.isArray(messages))
      throw new TypeError(`${where}: input.messages must be an array, got ${kind(messages)}`);
    if (tools !== undefined && !Array.isArray(tools)) {
      throw new TypeError(`${where}: input.tools must be an array when given, got ${kind(tools)}`);
    }
    if (typeof addGenerationPrompt !== "boolean") {
      throw new TypeError(`${where}: input.addGenerationPrompt must be a boolean, got ${kind(addGenerationPrompt)}`);
    }
    if (enableThinking !== undefined && typeof enableThinking !== "boolean") {
      throw new TypeError(`${where}: input.enableThinking must be a boolean, got ${kind(enableThinking)}`);
    }
    if (
      extraContext !== undefined &&
      (extraContext === null || typeof extraContext !== "object" || Array.isArray(extraContext))
    ) {
      throw new TypeError(`${where}: input.extraContext must be an object, got ${kind(extraContext)}`);
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
    return context;
  }

  /**
   * Renders exactly `context` with no polyfills (what transformers' apply_chat_template passes
   * to Jinja2); `bos_token`/`eos_token` come from the options unless the context sets them.
   *
   * @example
   * tpl.renderRaw({ messages: [{ role: "user", content: "Hi" }], tools: null, add_generation_prompt: true });
   */
  renderRaw(context: Record<string, unknown>): string {
    return this.#renderRawIn("ChatTemplate.renderRaw", context).text;
  }

  /**
   * {@link renderRaw}, also saying whether the rendering needed lenient rules.
   *
   * @example
   * const { text, mode } = tpl.renderRawWithMode({ messages, tools: null, add_generation_prompt: true });
   */
  renderRawWithMode(context: Record<string, unknown>): RenderResult {
    return this.#renderRawIn("ChatTemplate.renderRawWithMode", context);
  }

  #renderRawIn(where: string, context: Record<string, unknown>): RenderResult {
    if (context === null || typeof context !== "object" || Array.isArray(context)) {
      throw new TypeError(`${where}: context must be an object, got ${kind(context)}`);
    }
    const full = { bos_token: this.#bosToken, eos_token: this.#eosToken, ...context };
    if (this.compat !== "auto")
      return { text: this.#compiled.render(full, this.compat === "lenient"), mode: this.compat };
    try {
      return { text: this.#compiled.render(full, false), mode: "strict" };
    } catch (strictError) {
      if (!isRelaxable(strictError)) throw strictError;
      try {
        return { text: this.#compiled.render(full, true), mode: "lenient" };
      } catch (lenientError) {
        // The template's own refusal says more than the strict error it got past; anything
        // else: report what Python Jinja2 reports.
        throw lenientError instanceof TemplateError ? lenientError : strictError;
      }
    }
  }

  /** A tracked probe render under the same policy as #renderRawIn. */
  #probe(context: Record<string, unknown>): TrackedRender {
    if (this.compat !== "auto") {
      const r = this.#compiled.renderTracked(context, this.compat === "lenient");
      if (this.compat === "lenient") this.#capsMode = "lenient";
      return r;
    }
    const strict = this.#compiled.renderTracked(context, false);
    if (strict.ok || !isRelaxable(strict.error)) return strict;
    const lenient = this.#compiled.renderTracked(context, true);
    if (lenient.ok) this.#capsMode = "lenient";
    return lenient.ok ? lenient : strict;
  }

  #probeRunner(): ProbeRunner {
    return (context) => {
      const r = this.#probe(context);
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
