/**
 * Calls and Markdown code, for the parser only. Models write markerless calls as a fenced block
 * ("```json\n[{...}]\n```"), most of all those that learned the format from a prompt's examples: a fence
 * is read as calls only when all it holds is calls of the format (the calls its builder sets as
 * `BuildContext.fencedCalls`); any other fence stays content as written. The fence's markup belongs to the
 * call section: it is not content when its calls are read (the mapper makes it content with a call that is
 * not one), and the text around it stays content. Calls with their format's markers quoted as inline code
 * (`` `<tool_call>…</tool_call>` ``) or in a code fence are an example the model shows: text
 * (`BuildContext.quotedCalls`), as SGLang's and gLLM's tests read them.
 */
import type { PegArena, PegId } from "../peg/index.js";
import type { ToolsAnalysis } from "../analysis/index.js";
import type { BuildContext } from "./build-helpers.js";
import { NODE } from "./tree-names.js";

/** The Markdown code fence. */
export const FENCE = "```";

/** Markdown's other code fence. */
const TILDES = "~~~";

/** The fence's opening line: the backticks, a language word if any (`json`, `xml`, `python`), whitespace. */
function fenceOpen(p: PegArena, fence = FENCE): PegId {
  return p.seq(p.literal(fence), p.chars("A-Za-z0-9_+\\-", 0, 32), p.space());
}

/** The template writes a fence in its own call markers (the fence is then the format's, not a wrapper). */
function fenceInMarkers(t: ToolsAnalysis): boolean {
  const f = t.format;
  return [f.sectionStart, f.sectionEnd, f.perCallStart, f.perCallEnd, t.function.namePrefix].some((m) =>
    m.includes(FENCE),
  );
}

/**
 * `inner` in a Markdown code fence (a language word allowed; `fence`: ``` or ~~~), whose closing fence may be left out
 * at the end.
 *
 * @example
 * const fenced = inFence(p, call); // "```json\n{…}\n```"
 */
export function inFence(p: PegArena, inner: PegId, fence = FENCE): PegId {
  return p.seq(fenceOpen(p, fence), inner, p.space(), p.choice(p.literal(fence), p.end()));
}

/**
 * A whole fence that holds only calls, as a call section; null where the format sets no fenced
 * calls, or writes a fence itself. The closing fence may be left out at the end of the output
 * (the model stopped right after its calls). Built once per parser: its nodes are shared.
 *
 * @example
 * const fenced = fencedSection(ctx, analysis.tools); // "```json\n" calls "\n```"
 */
export function fencedSection(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const { p } = ctx;
  if (ctx.forGrammar || ctx.fencedCalls === undefined || fenceInMarkers(t)) return null;
  return p.tag(NODE.toolSection, inFence(p, ctx.fencedCalls));
}

/**
 * Calls with their markers quoted as inline code or in a code fence (whose closing fence may be left out at
 * the end of the output), as text: null where the format sets no quoted calls or writes a fence itself.
 *
 * @example
 * const quoted = quotedCalls(ctx, analysis.tools); // "`<tool_call>…</tool_call>`" is text
 */
export function quotedCalls(ctx: BuildContext, t: ToolsAnalysis): PegId | null {
  const { p } = ctx;
  const calls = ctx.quotedCalls;
  if (ctx.forGrammar || calls === undefined || fenceInMarkers(t)) return null;
  // Atomic: until its closer says it is quoted, the text stops before it (a stream shows none of it yet).
  const inline = p.seq(p.literal("`"), calls, p.literal("`"));
  return p.atomic(p.choice(inline, inFence(p, calls), inFence(p, calls, TILDES)));
}

/** Whether `text` starts as calls quoted as code do ({@link quotedCalls}): with a backtick or a `~~~` fence. */
export function opensCodeQuote(text: string): boolean {
  return text.startsWith("`") || text.startsWith(TILDES);
}

/** What text holds besides plain characters: see {@link textBeforeCalls}. */
export interface TextPieces {
  /** A fence of calls (a call section), or null. */
  fenced: PegId | null;
  /** Calls quoted as code ({@link quotedCalls}), or null. */
  quoted?: PegId | null;
  /** A call that starts with one of `callStarts` (default `{`) without the format's markers. */
  braceCall?: PegId;
  callStarts?: readonly string[];
}

/**
 * Content up to the first of `stops`, a fence of calls (`fenced`) or a `{` where `braceCall` (a call that
 * starts with a brace; with `callStarts`, at each of those characters) matches. A fence that holds anything else
 * is text up to its closing fence (which therefore never opens a fence of calls), unless a stop comes first, and
 * so are calls quoted as code (`quoted`). Text runs from brace to brace, so `braceCall` is tried only where one is.
 *
 * @example
 * const text = textBeforeCalls(p, ["<tool_call>"], { fenced, quoted });
 */
export function textBeforeCalls(p: PegArena, stops: readonly string[], pieces: TextPieces): PegId {
  const { fenced, braceCall, callStarts = ["{"] } = pieces;
  const quoted = pieces.quoted ?? null;
  const code = fenced !== null || quoted !== null;
  if (!code && braceCall === undefined) return p.capture(NODE.content, p.until(...stops));
  const codeStops = quoted !== null ? ["`", TILDES] : fenced !== null ? [FENCE] : [];
  const piece = p.until(...stops, ...codeStops, ...(braceCall === undefined ? [] : callStarts));
  const steps: PegId[] = [];
  if (quoted !== null) steps.push(quoted);
  if (code) {
    const block = (fence: string): PegId =>
      p.seq(p.literal(fence), p.until(...stops, fence), p.optional(p.literal(fence)));
    steps.push(p.seq(fenced === null ? p.eps() : p.not(fenced), block(FENCE)));
    if (quoted !== null) steps.push(block(TILDES), p.literal("`"));
  }
  if (braceCall !== undefined) {
    // A stop that begins with a call's first character (`[TOOL_CALLS]` and `[`) still ends the text.
    const atStop = stops.filter((s) => callStarts.some((c) => s.startsWith(c))).map((s) => p.literal(s));
    const notStop = atStop.length === 0 ? p.eps() : p.not(p.choice(...atStop));
    steps.push(p.seq(notStop, p.not(braceCall), p.choice(...callStarts.map((c) => p.literal(c)))));
  }
  return p.capture(NODE.content, p.seq(piece, p.zeroOrMore(p.seq(p.choice(...steps), piece))));
}

/**
 * Content up to the first place where one of `stops` or a fence of calls (`fenced`) matches; a
 * fence that holds anything else is text as in {@link textBeforeCalls}.
 *
 * @example
 * const text = textBeforeMatch(p, [announcedCall], fenced);
 */
export function textBeforeMatch(p: PegArena, stops: readonly PegId[], fenced: PegId | null): PegId {
  const char = (extra: PegId[]): PegId => {
    const all = [...stops, ...extra];
    return all.length === 0 ? p.any() : p.seq(p.not(p.choice(...all)), p.any());
  };
  if (fenced === null) return p.capture(NODE.content, p.zeroOrMore(char([])));
  const inFence = char([p.literal(FENCE)]);
  // A closed code block that is no fence of calls is text whole: a call inside it is code (a call next to
  // other code); an unclosed one ends where a call starts.
  const closed = p.seq(p.literal(FENCE), p.zeroOrMore(p.seq(p.not(p.literal(FENCE)), p.any())), p.literal(FENCE));
  const open = p.seq(p.literal(FENCE), p.zeroOrMore(inFence), p.optional(p.literal(FENCE)));
  const codeBlock = p.seq(p.not(fenced), p.choice(closed, open));
  return p.capture(NODE.content, p.zeroOrMore(p.choice(codeBlock, inFence)));
}
