/**
 * Renders probe variants of one template and compares them. Outputs are byte strings
 * (bytes.ts); a template that raises for a variant yields `null` for it, and any comparison
 * involving it is skipped by the phase that asked (as in llama.cpp, a failed render is not
 * an analysis error).
 *
 * @example
 * const probe = new VariantRenderer(renderContext, caps);
 * const cmp = probe.compare({ messages: [USER_TURN], tools: null }, { messages: [USER_TURN, ASSISTANT_TURN] });
 */
import { toBytes } from "./bytes.js";
import { calculateDiffSplit, type DiffSplit } from "./diff.js";
import type { ProbeMessage } from "./probes.js";
import type { TemplateCaps } from "../template/types.js";

/** One probe rendering request. */
export interface Variant {
  messages: ProbeMessage[];
  /** Tools offered; null or empty means the `tools` variable is not set. */
  tools?: readonly Record<string, unknown>[] | null;
  addGenerationPrompt?: boolean;
  /** Default true. */
  enableThinking?: boolean;
}

/** Two renderings and their diff split. */
export interface Comparison {
  diff: DiffSplit;
  outputA: string;
  outputB: string;
}

/** Renders a full template context (the template's `renderRaw`). Throws when the template fails. */
export type ContextRenderer = (context: Record<string, unknown>) => string;

/**
 * Probe messages get the same input conversions as a real prompt (ChatTemplate.render): typed
 * content parts for templates that need them, and JSON-string arguments for templates that
 * cannot read object arguments. (llama.cpp's analyser always passes objects; for such templates
 * it analyses a rendering the model never sees in a real prompt.)
 */
function normalizeMessages(messages: readonly ProbeMessage[], caps: TemplateCaps): ProbeMessage[] {
  const onlyTyped = !caps.supportsStringContent && caps.supportsTypedContent;
  const stringArgs = !caps.supportsObjectArguments;
  if (!onlyTyped && !stringArgs) return messages as ProbeMessage[];
  return messages.map((m) => {
    const out: ProbeMessage = { ...m };
    if (onlyTyped && typeof m.content === "string") out.content = [{ type: "text", text: m.content }];
    if (stringArgs && Array.isArray(m.tool_calls)) {
      out.tool_calls = (m.tool_calls as ProbeMessage[]).map((call) => {
        const fn = call.function as ProbeMessage;
        return { ...call, function: { ...fn, arguments: JSON.stringify(fn.arguments) } };
      });
    }
    return out;
  });
}

/** Renders and compares variants, remembering each rendering for the rest of the analysis. */
export class VariantRenderer {
  private readonly cache = new Map<string, string | null>();
  private readonly toolsIds = new Map<readonly Record<string, unknown>[], number>();

  constructor(
    private readonly renderContext: ContextRenderer,
    private readonly caps: TemplateCaps,
    private readonly bosToken: string,
    private readonly eosToken: string,
    /** The family's message conventions, applied to every probe (AnalyzeOptions.format). */
    private readonly adaptMessages: (messages: ProbeMessage[]) => ProbeMessage[] = (m) => m,
  ) {}

  /** Renders one variant to a byte string, or null when the template raised. */
  render(variant: Variant): string | null {
    // The tools array is a shared constant: key it by identity instead of serialising it.
    const key = JSON.stringify([
      variant.messages,
      variant.tools ? this.toolsId(variant.tools) : 0,
      variant.addGenerationPrompt ?? false,
      variant.enableThinking ?? true,
    ]);
    const cached = this.cache.get(key);
    if (cached !== undefined || this.cache.has(key)) return cached ?? null;
    const enableThinking = variant.enableThinking ?? true;
    const context: Record<string, unknown> = {
      messages: normalizeMessages(this.adaptMessages(variant.messages), this.caps),
      bos_token: this.bosToken,
      eos_token: this.eosToken,
      enable_thinking: enableThinking,
    };
    if (variant.tools && variant.tools.length > 0) context.tools = variant.tools;
    if (variant.addGenerationPrompt) context.add_generation_prompt = true;
    let output: string | null;
    try {
      output = toBytes(this.renderContext(context));
    } catch {
      output = null;
    }
    this.cache.set(key, output);
    return output;
  }

  private toolsId(tools: readonly Record<string, unknown>[]): number {
    let id = this.toolsIds.get(tools);
    if (id === undefined) {
      id = this.toolsIds.size + 1;
      this.toolsIds.set(tools, id);
    }
    return id;
  }

  /** Renders `a` and `a` with `change` applied, and splits the two; null when either fails. */
  compare(a: Variant, change: Partial<Variant>): Comparison | null {
    const outputA = this.render(a);
    const outputB = this.render({ ...a, ...change });
    if (outputA === null || outputB === null) return null;
    return { diff: calculateDiffSplit(outputA, outputB), outputA, outputB };
  }
}
