/**
 * Formats whose tags share a namespace with their section's tag (DeepSeek's DSML: `<｜DSML｜tool_calls>` around
 * `<｜DSML｜invoke name="f">` and `<｜DSML｜parameter …>`). Models write such calls with the namespace left out of
 * every inner tag (`<invoke name="f">…</invoke>` inside `<｜DSML｜tool_calls>`), as OpenHands' tests of real
 * completions show; the section's own tags keep it, and they alone say calls follow.
 */
import type { PegId } from "../peg/index.js";
import type { ToolsAnalysis } from "../analysis/index.js";
import type { BuildContext } from "./build-helpers.js";
import { core } from "./build-markers.js";

/** The namespace the section's opening tag shares with the call's (`｜DSML｜`, `ns:`); "" where none. */
export function tagNamespace(t: ToolsAnalysis): string {
  const section = core(t.format.sectionStart);
  const call = core(t.function.namePrefix);
  if (!section.startsWith("<") || !call.startsWith("<")) return "";
  let shared = 1;
  while (shared < section.length && section[shared] === call[shared]) shared++;
  const common = section.slice(1, shared);
  // A word between two equal delimiters (`｜DSML｜`) or before a colon (XML's `ns:`): a shared `|`, `tool_` or
  // `｜tool▁` (DeepSeek R1's `<｜tool▁calls▁begin｜>` and `<｜tool▁sep｜>`) is no namespace.
  const m = /^(?:([^\p{L}\p{N}_\s])[\p{L}\p{N}_]+\1|[\p{L}\p{N}_]+:)/u.exec(common);
  return m?.[0] ?? "";
}

/**
 * For the parser: the format with the namespace left out of every tag inside the section (the section's own
 * tags keep it), or null where the format has no namespace. Every inner tag loses it at once: a call that mixes
 * both spellings is no call of either (SGLang's tests).
 *
 * @example
 * withoutInnerNamespace(deepSeekV4)?.function.namePrefix; // '<invoke name="'
 */
export function withoutInnerNamespace(t: ToolsAnalysis): ToolsAnalysis | null {
  const namespace = tagNamespace(t);
  if (namespace === "") return null;
  const drop = (text: string): string => text.split(`</${namespace}`).join("</").split(`<${namespace}`).join("<");
  const strip = <T extends object>(part: T): T =>
    Object.fromEntries(Object.entries(part).map(([k, v]) => [k, typeof v === "string" ? drop(v) : v])) as T;
  return { ...t, function: strip(t.function), arguments: strip(t.arguments), callId: strip(t.callId) };
}

/**
 * For the parser: `calls` or the declared tools' calls with the namespace left out of every tag inside the section
 * (`declared` builds those of a format); their rules are named apart (prefix `bare-`).
 */
export function withoutNamespaceToo(
  ctx: BuildContext,
  t: ToolsAnalysis,
  calls: PegId,
  declared: (ctx: BuildContext, format: ToolsAnalysis) => PegId[],
): PegId {
  const bare = ctx.forGrammar ? null : withoutInnerNamespace(t);
  if (bare === null) return calls;
  // Reads through to ctx (what it learns later too); only the rule names differ.
  const bareCtx: BuildContext = Object.create(ctx, { rulePrefix: { value: `${ctx.rulePrefix ?? ""}bare-` } });
  return ctx.p.lenient(ctx.p.choice(calls, ...declared(bareCtx, bare)), calls);
}
