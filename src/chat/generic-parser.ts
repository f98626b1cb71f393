/**
 * The universal parser generator: builds, from a template analysis and a request, the PEG
 * definition that reads the model's output (reasoning, content, tool calls or a JSON answer).
 * The GBNF grammar is derived from the same definition (see generate.ts).
 *
 * Shape: [reasoning block]? then one of (strict grammars: the reasoning block only when the
 * request thinks, and under tool_choice required the calls alone)
 *   - JSON answer:  ("```json" JSON "```" | JSON)            (response_format json_schema)
 *   - tool calls:   content-until-trigger? tool-section      (tool_choice auto/required/named)
 *   - content:      the rest (or the wrapped content)
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { PegArena, type PegId } from "../peg/index.js";
import type { JsonSchema } from "../types.js";
import {
  type BuildContext,
  core,
  grammarContext,
  jsonAnswerValue,
  jsonCallObject,
  marker,
  maybeFenced,
  reasoningText,
  sectionsBetween,
  sectionsThenText,
  withoutSpecialTokens,
} from "./build-helpers.js";
import { buildJsonTools, specialToken } from "./build-tools-json.js";
import { buildPythonicTools, pythonicTriggerWord } from "./build-tools-pythonic.js";
import { buildTaggedTools, callOpeners, wordSpellings } from "./build-tools-tagged.js";
import { fencedSection, quotedCalls, textBeforeCalls, textBeforeMatch } from "./fenced-calls.js";
import { nameHandle } from "./name-handle.js";
import type { NormalizedRequest } from "./request.js";
import { NODE } from "./tree-names.js";
import type { ChatMappingOptions } from "./types.js";

/** A parser definition and the pieces the grammar step needs. */
export interface BuiltParser {
  arena: PegArena;
  /** Reads prefix + output. */
  root: PegId;
  /** What follows the reasoning (where a deferred grammar starts). */
  body: PegId;
  /**
   * Where reading starts again after an abandoned call (chat-parser.ts), when that differs from
   * `body` (calls without markers, see markerlessResume). Parser only. Absent: `body`.
   */
  resume?: PegId;
  /**
   * Stricter roots for the grammar than for parsing, over the same sub-parsers (e.g. under
   * `tool_choice: "required"` the grammar makes the call come first, while the parser still
   * reads text before a call). Absent: the grammar uses `root` and `body`.
   */
  grammarRoot?: PegId;
  grammarBody?: PegId;
  /**
   * Where a lazy grammar (tool_choice auto) finds its trigger rules when they are not the
   * parser's own: a format whose parser reads more than the model should write (PYTHONIC reads
   * any argument order and unescaped quotes) gives the grammar's copy of the call section.
   * Absent: the lazy grammar comes from `root`.
   */
  lazyGrammarRoot?: PegId;
  /** The (trimmed) marker that ends reasoning, or null when the format has no reasoning. */
  reasoningEnd: string | null;
  /** The (trimmed) marker with which the model opens reasoning itself, when it has one. */
  reasoningStart?: string | null;
  /** The output is constrained at all (tools or a JSON schema). */
  constrained: boolean;
  /** Calls are optional: the grammar is lazy, started by the tool-section trigger. */
  lazy: boolean;
  mapping: ChatMappingOptions;
  format: string;
}

/**
 * `start reasoning end`, optional. Reasoning text itself is never constrained (until-the-end-marker).
 * With tools, a call may also end reasoning: models go from reasoning straight to a call without
 * its end marker (Qwen3.5, DeepSeek V4, Kimi K2 Thinking do), so reasoning stops at a call opener.
 */
function reasoningBlock(p: PegArena, a: TemplateAnalysis, callOpeners: string[], promptClosed: boolean): PegId | null {
  const { mode, start, end } = a.reasoning;
  if (mode === "NONE" || core(end) === "") return null;
  // An end marker that holds the next message's header (Solar Open's `<|end|><|begin|>assistant`): for the parser
  // also without that header, as models write it (`<|think|>…<|end|><|content|>…`).
  const header = core(a.assistantStart);
  const bare = header !== "" && core(end).endsWith(header) ? core(end).slice(0, -header.length).trim() : "";
  const ends = [core(end), ...(bare !== "" ? [bare] : [])];
  const text = p.capture(
    NODE.reasoning,
    callOpeners.length === 0 ? p.until(...ends) : reasoningText(p, ends, callOpeners),
  );
  // Where the prompt closed reasoning (a request that does not think), a marker the model writes is its text.
  const written = promptClosed ? marker(p, end) : endedOnce(p, end);
  const ended = bare === "" ? written : p.lenient(p.choice(written, p.literal(bare)), written);
  // A call ends reasoning only when no end marker follows: a call-like text in reasoning that
  // the model closes later is part of the reasoning (Reka writes one).
  const closed =
    callOpeners.length === 0 ? ended : p.choice(ended, p.and(p.choice(...callOpeners.map((w) => p.literal(w)))));
  // For the parser the end of the output ends it too: text there that could have begun the end marker (`…</thi`)
  // is reasoning.
  const close = p.lenient(p.choice(closed, p.end()), closed);
  const block = core(start) !== "" ? p.seq(p.space(), marker(p, start), text, close) : p.seq(text, close);
  return p.optional(p.tag(NODE.reasoningBlock, block));
}

/**
 * The reasoning's end marker; for the parser also written again at once (`…</think></think>answer`): the block
 * ends once, the repeat is not content, as SGLang's and rtp-llm's tests read it. The grammar writes it once.
 */
function endedOnce(p: PegArena, end: string): PegId {
  const once = marker(p, end);
  return p.lenient(p.seq(once, p.zeroOrMore(p.literal(core(end)))), once);
}

/**
 * `start end` with only whitespace between, optional: what a strict grammar allows before the
 * answer when the request does not think. Some templates render an empty reasoning block even
 * then (Kimi K2 Thinking always writes `<think></think>`), and so do their models; an empty
 * block keeps the grammar bounded. Null when the model does not open reasoning itself.
 */
function emptyReasoningBlock(p: PegArena, a: TemplateAnalysis): PegId | null {
  const { mode, start, end } = a.reasoning;
  if (mode === "NONE" || core(end) === "" || core(start) === "") return null;
  return p.optional(p.seq(p.space(), marker(p, start), p.space(), marker(p, end)));
}

/** `"```json" value "```"` or the bare value, as content (inside the content wrapper, if any). */
function jsonAnswer(p: PegArena, a: TemplateAnalysis, schema: JsonSchema): PegId {
  const answer = maybeFenced(p, p.rule("response-format", jsonAnswerValue(p, schema)));
  const { mode, start, end } = a.content;
  const wrapped = mode !== "PLAIN" && core(start) !== "" && core(end) !== "";
  const open = wrapped ? p.optional(p.seq(marker(p, start), p.space())) : contentPrefix(p, a);
  // Content that only has an end (a channel's end-of-message, role-channels.ts) closes the same way.
  const close = mode !== "PLAIN" && core(end) !== "" ? p.optional(p.seq(p.space(), marker(p, end))) : p.eps();
  return p.seq(p.space(), open, answer, close, p.space(), p.end());
}

/**
 * A content prefix with no end marker (Hunyuan's "助手："), optional: the content is what follows
 * it. eps where content has none, or a wrapper with an end (handled as wrapped content).
 */
function contentPrefix(p: PegArena, a: TemplateAnalysis): PegId {
  const { mode, start, end } = a.content;
  return mode !== "PLAIN" && core(start) !== "" && core(end) === "" ? p.optional(marker(p, start)) : p.eps();
}

/** Content only: the rest, or the wrapped content when the template wraps it. */
function contentOnly(p: PegArena, a: TemplateAnalysis): PegId {
  const { mode, start, end } = a.content;
  if (mode === "PLAIN" || core(end) === "") return p.seq(contentPrefix(p, a), p.capture(NODE.content, p.rest()));
  // Models do not always write the opener (some prompts end with it): it is optional.
  const opener = core(start) !== "" ? p.optional(marker(p, start)) : p.eps();
  return p.seq(
    opener,
    p.capture(NODE.content, p.until(core(end))),
    p.optional(p.seq(marker(p, end), p.space(), p.end())),
  );
}

/**
 * The call section alone, first thing after reasoning: the grammar of `tool_choice: "required"`.
 * OpenAI's "required" means the model must call; a grammar that allows free text before the
 * call lets a model never get there (llama.cpp's does allow it). The parser keeps reading text
 * before a call (see withTools), so output from an unconstrained run still maps.
 */
function callsFirst(p: PegArena, section: PegId): PegId {
  return p.seq(p.space(), section, p.space(), p.end());
}

/** The tool-call section of the format (built once: its rules are named). */
function toolSection(ctx: BuildContext, a: TemplateAnalysis): PegId {
  switch (a.tools.format.mode) {
    case "JSON_NATIVE":
      return buildJsonTools(ctx, a.tools.format);
    case "PYTHONIC":
      return buildPythonicTools(ctx, a.tools);
    case "TAG_WITH_JSON":
    case "TAG_WITH_TAGGED":
    case "NONE":
      return buildTaggedTools(ctx, a.tools);
  }
}

/** Content (optional), then the tool-call section. */
function withTools(ctx: BuildContext, a: TemplateAnalysis, section: PegId): PegId {
  const { p } = ctx;
  const calls = ctx.requireCalls ? section : p.optional(section);
  const openers = openersOf(a);
  const trigger = openers[0] ?? "";
  const { mode, start, end } = a.content;
  if (mode === "ALWAYS_WRAPPED" && core(end) !== "") {
    // Wrapped content (or plain text: models do not always wrap), up to the wrapper's end or a call.
    const stops = [core(end), ...openers];
    const plain = p.seq(p.capture(NODE.content, p.until(...stops)), p.optional(marker(p, end)));
    if (core(start) === "") {
      // Content as a channel of its own (role-channels.ts): closed by its end-of-message, calls
      // follow under the role header written again, and close their channel the same way.
      const header = core(a.assistantStart) !== "" ? p.optional(marker(p, a.assistantStart)) : p.eps();
      return p.seq(
        p.optional(plain),
        p.space(),
        header,
        p.space(),
        calls,
        p.space(),
        p.optional(marker(p, end)),
        p.space(),
        p.end(),
      );
    }
    const wrapped = p.seq(marker(p, start), p.capture(NODE.content, p.until(...stops)), p.optional(marker(p, end)));
    // Calls after the content's end may come in a message of their own, under the role header written again
    // (Solar Open's `…<|end|><|begin|>assistant<|tool_calls|>…`).
    const again = core(a.assistantStart) !== "" ? p.optional(p.seq(p.space(), marker(p, a.assistantStart))) : p.eps();
    const text = p.seq(p.choice(wrapped, plain), again);
    // Every call section is read, with the (wrapped or plain) text between and after them.
    const sections = sectionsBetween(p, section, text, ctx.readsParallel ?? ctx.parallel);
    return p.seq(p.optional(text), p.space(), ctx.requireCalls ? sections : p.optional(sections), p.space(), p.end());
  }
  if (trigger === "") {
    // No marker opens a call: it is recognised by its own start, else the output is content.
    const callsOnly = p.seq(p.space(), section, p.space(), p.end());
    // Output that starts like a call through its tool name is not content: the stream has
    // announced the call by then, so a whole parse must recover it as a broken call too.
    const notCall = ctx.callHead === undefined ? p.eps() : p.not(ctx.callHead);
    if (ctx.requireCalls) return callsOnly;
    const fenced = fencedSection(ctx, a.tools);
    if (ctx.callHead === undefined && fenced === null)
      return p.choice(callsOnly, p.seq(notCall, contentPrefix(p, a), p.capture(NODE.content, p.rest())));
    // Text, then calls (`Let me check. {"name": ...}`, also announced by a special token:
    // `<|python_tag|>{"name": ...}`), or fences of calls with text around them. A call starts
    // where a declared tool's name is the first field of an object.
    const announced =
      ctx.callHead === undefined ? null : p.choice(p.seq(specialToken(ctx), p.space(), ctx.callHead), ctx.callHead);
    const text = textBeforeMatch(p, announced === null ? [] : [announced], fenced);
    const blocks = fenced === null ? p.eps() : p.zeroOrMore(p.seq(fenced, text));
    const more = announced === null ? p.eps() : moreMarkerlessCalls(ctx, announced, section, p.seq(text, blocks));
    const calls = announced === null ? p.eps() : p.optional(p.seq(p.and(announced), section, more));
    const leadingCalls = p.seq(p.space(), section, more, p.space(), p.end());
    return p.choice(leadingCalls, p.seq(notCall, contentPrefix(p, a), text, blocks, calls, p.space(), p.end()));
  }
  // Text a model writes after its calls is content (Ling 3 does), up to the next call section
  // (or a fence of calls, or a JSON call written without the format's markers).
  const fenced = fencedSection(ctx, a.tools);
  const bare = bareJsonCalls(ctx, a) ?? bareMarkedCalls(ctx);
  const sections = p.choice(...[fenced, section, bare?.section].filter((s): s is PegId => s != null));
  const quoted = quotedCalls(ctx, a.tools);
  const text = (): PegId =>
    textBeforeCalls(p, openers, { fenced, quoted, braceCall: bare?.head, callStarts: bare?.starts });
  const callsThenText = sectionsThenText(p, sections, openers, ctx.readsParallel ?? ctx.parallel, text());
  const after = ctx.requireCalls ? callsThenText : p.choice(callsThenText, p.eps());
  const body = p.seq(p.optional(p.seq(contentPrefix(p, a), text())), after, p.space(), p.end());
  const whole = wholeBareCalls(ctx);
  // Atomic: until the output ends, the calls may yet be followed by text that makes them none (a stream shows none).
  return whole === null ? body : p.choice(p.atomic(p.seq(p.space(), whole, p.space(), p.end())), body);
}

/**
 * The calls of a format that marks each call, written as the whole output without their markers (Ollama reads
 * them so). Parser only; null where the format's builder reads no such calls or reads them anywhere.
 */
function wholeBareCalls(ctx: BuildContext): PegId | null {
  const bare = ctx.bareCalls;
  if (ctx.forGrammar || bare?.wholeOutput !== true || ctx.tools.length === 0) return null;
  const { p } = ctx;
  return p.tag(NODE.toolSection, p.seq(p.and(bare.head), p.tag(NODE.unmarkedCalls, bare.calls)));
}

/**
 * A JSON call object (`{"name": "f", "arguments": {…}}`) written without the markers of a format whose calls
 * have them, as models trained on other formats write it: a call where its first field names a declared tool
 * (JSON in prose is no call). Parser only; null where the format's calls are JSON or Python already.
 */
function bareJsonCalls(ctx: BuildContext, a: TemplateAnalysis): MarkerlessCalls | null {
  const { p } = ctx;
  const mode = a.tools.format.mode;
  if (ctx.forGrammar || (mode !== "TAG_WITH_JSON" && mode !== "TAG_WITH_TAGGED") || ctx.tools.length === 0) return null;
  const names = ctx.tools.map((tool) => tool.function.name);
  const nameKey = p.seq(p.literal("{"), p.space(), p.literal('"name"'), p.space(), p.literal(":"), p.space());
  const head = p.seq(nameKey, p.choice(...names.map((name) => p.literal(JSON.stringify(name)))));
  // Its closing brace closes it, where the format's calls close with a marker (callEndRequired).
  const call = p.seq(p.and(head), p.choice(...names.map((name) => jsonCallObject(p, name, true))));
  return { head, section: p.tag(NODE.toolSection, call), starts: ["{"] };
}

/** Calls written without the format's markers: where they start (`head`, at one of `starts`), and them. */
interface MarkerlessCalls {
  head: PegId;
  section: PegId;
  starts: readonly string[];
}

/**
 * The calls of a format whose calls sit in markers, written without them (`[get_weather(city='Paris')]`,
 * `[{"name": "get_weather", …}]`): calls where the first names a declared tool (a list or object in prose is no
 * call). Parser only; null where the format's builder reads no such calls (`BuildContext.bareCalls`).
 */
function bareMarkedCalls(ctx: BuildContext): MarkerlessCalls | null {
  const bare = ctx.bareCalls;
  if (ctx.forGrammar || bare === undefined || bare.wholeOutput === true || ctx.tools.length === 0) return null;
  const { p } = ctx;
  return {
    head: bare.head,
    section: p.tag(NODE.toolSection, p.seq(p.and(bare.head), p.tag(NODE.unmarkedCalls, bare.calls))),
    starts: bare.starts,
  };
}

/**
 * Where reading resumes one character past an abandoned call, for calls no marker opens: text up
 * to the next call head (a declared tool's name as the first field) or a call a special token
 * announces, then the calls (a broken call, then a valid one), as the body reads them after
 * text. Undefined where calls have markers or no fixed head (`body` serves then).
 */
function markerlessResume(ctx: BuildContext, a: TemplateAnalysis, section: PegId): PegId | undefined {
  const { p } = ctx;
  if (ctx.callHead === undefined || openersOf(a).length > 0) return undefined;
  const opens = p.choice(p.seq(specialToken(ctx), p.space(), ctx.callHead), ctx.callHead);
  const fenced = fencedSection(ctx, a.tools);
  const text = textBeforeMatch(p, [opens], fenced);
  const blocks = fenced === null ? p.eps() : p.zeroOrMore(p.seq(fenced, text));
  const more = moreMarkerlessCalls(ctx, opens, section, p.seq(text, blocks));
  return p.seq(text, blocks, p.optional(p.seq(p.and(opens), section, more)), p.space(), p.end());
}

/**
 * After markerless calls, for the parser the next ones that `announced` starts, with text between them (`{…} Also
 * need: {…}`, as LocalAI's, Ollama's and smolagents' tests read it), unless the request reads one call; the grammar
 * writes one section.
 */
function moreMarkerlessCalls(ctx: BuildContext, announced: PegId, section: PegId, text: PegId): PegId {
  const { p } = ctx;
  if (!(ctx.readsParallel ?? ctx.parallel)) return p.eps();
  return p.lenient(p.zeroOrMore(p.seq(text, p.and(announced), section)), p.eps());
}

/**
 * The words that open calls in this format's output (the first is the section's trigger word;
 * none when calls are recognised by their own start).
 */
function openersOf(a: TemplateAnalysis): string[] {
  const t = a.tools;
  const only = (word: string): string[] => (word === "" ? [] : wordSpellings(word));
  switch (t.format.mode) {
    case "JSON_NATIVE": {
      const opener = core(t.format.sectionStart) || core(t.format.perCallStart);
      // Also the opener's words without its special tokens (see sectionOpener in build-tools-json.ts).
      const words = core(t.format.sectionStart) === "" ? "" : withoutSpecialTokens(t.format.sectionStart);
      return [...only(opener), ...only(words)];
    }
    case "PYTHONIC":
      return only(pythonicTriggerWord(t));
    case "TAG_WITH_JSON":
    case "TAG_WITH_TAGGED":
    case "NONE":
      return callOpeners(t);
  }
}

/**
 * Tagged arguments end with the call's marker (the function's closer, else the per-call one): a
 * call the output stops before it is one the model did not finish. (A JSON argument object ends
 * with its own brace.)
 */
/**
 * JSON calls between the format's markers may leave out the arguments of a tool that requires none
 * (`<tool_call>{"name": "now"}</tool_call>`); markerless ones must write them (JSON in prose is no call).
 */
function argumentsRequired(a: TemplateAnalysis): true | "where-declared" {
  const f = a.tools.format;
  return core(f.sectionStart) !== "" || core(f.perCallStart) !== "" ? "where-declared" : true;
}

function callsClose(a: TemplateAnalysis): boolean {
  if (a.tools.format.mode !== "TAG_WITH_TAGGED") return false;
  return core(a.tools.function.close) !== "" || core(a.tools.format.perCallEnd) !== "";
}

/** Options of {@link buildGenericParser}. */
export interface GenericOptions {
  /** Tagged non-string values are Python literals (see value-syntax.ts). */
  pythonTaggedValues?: boolean;
  /** The prompt opens reasoning: a strict grammar will start at the reasoning end. */
  deferredGrammar?: boolean;
  /**
   * The generation prompt closes reasoning (a request that does not think): an end marker the model writes
   * after it is its text, as vLLM's and Ollama's tests read it.
   */
  promptClosedReasoning?: boolean;
  /** Tagged string values may come in a CDATA block (XML-style formats that say so). */
  cdataStrings?: boolean;
  /** Tagged objects and arrays are JSON even where scalars are Python literals (see value-syntax.ts). */
  jsonContainers?: { objects: boolean; arrays: boolean };
}

/**
 * Builds the generic parser for a template analysis and a request.
 *
 * @example
 * const built = buildGenericParser(analysis, normalizeRequest(request, analysis.caps));
 * parsePeg(built.arena, built.root, "<think>\nhm\n</think>\n\nHi").status; // "success"
 */
export function buildGenericParser(
  a: TemplateAnalysis,
  req: NormalizedRequest,
  options: GenericOptions = {},
): BuiltParser {
  const p = new PegArena();
  const ctx: BuildContext = {
    p,
    tools: req.tools,
    requireCalls: req.toolChoice === "required",
    parallel: req.parallel,
    readsParallel: req.readsParallel,
    pythonValues: a.tools.format.usesPythonDicts,
    pythonTaggedValues: a.tools.format.usesPythonDicts || (options.pythonTaggedValues ?? false),
    toolTrigger: !(options.deferredGrammar ?? false) || req.toolChoice === "auto",
    cdataStrings: options.cdataStrings ?? false,
    jsonContainers: options.jsonContainers ?? { objects: false, arrays: false },
  };
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && a.tools.format.mode !== "NONE";
  let body: PegId;
  let resume: PegId | undefined;
  let grammarBody: PegId | undefined;
  let lazyGrammarRoot: PegId | undefined;
  if (req.jsonSchema !== null) body = jsonAnswer(p, a, req.jsonSchema);
  else if (useTools) {
    const section = toolSection(ctx, a);
    body = withTools(ctx, a, section);
    resume = markerlessResume(ctx, a, section);
    // The grammar's own copy of the section: schema-ordered, bounded (see BuildContext.forGrammar).
    if (ctx.requireCalls) grammarBody = callsFirst(p, toolSection(grammarContext(ctx, req.maxCalls), a));
    else if (a.tools.format.mode === "PYTHONIC") lazyGrammarRoot = toolSection(grammarContext(ctx, req.maxCalls), a);
  } else body = contentOnly(p, a);
  // Reasoning that runs into a call opener ends there, tools or not: the markup after it is a call or content,
  // never hidden reasoning (TensorRT-LLM reads Nemotron 3 so).
  const openers = req.jsonSchema === null ? openersOf(a) : [];
  const reasoning = reasoningBlock(p, a, openers, options.promptClosedReasoning ?? false);
  // For the parser a model may write a reasoning block of its own after one the prompt closed (thinking off):
  // it is reasoning too.
  const root = reasoning === null ? body : p.seq(reasoning, p.lenient(reasoning, p.eps()), body);
  // A request that does not think gets at most an empty reasoning block in its strict grammar (the
  // parser still reads any).
  const strictBody = grammarBody ?? (req.jsonSchema !== null ? body : undefined);
  const emptyReasoning = reasoning === null || req.thinking ? null : emptyReasoningBlock(p, a);
  const grammarRoot =
    strictBody === undefined
      ? undefined
      : reasoning === null
        ? strictBody
        : req.thinking
          ? p.seq(reasoning, strictBody)
          : emptyReasoning === null
            ? strictBody
            : p.seq(emptyReasoning, strictBody);
  const f = a.tools.format;
  // The model's own id is kept, also one the template numbers itself (Command R7B's tool_call_id "0").
  const idField = f.idField || f.genIdField;
  const idAfterName =
    a.tools.callId.position === "BETWEEN_FUNC_AND_ARGS" ||
    a.tools.callId.position === "POST_ARGS" ||
    (idField !== "" && f.parameterOrder.indexOf(idField) > f.parameterOrder.indexOf(f.nameField || "name")) ||
    // The numbered name is the id (functions.NAME:0): it is complete after the name.
    (a.tools.callId.position === "NONE" && nameHandle(a.tools.function) !== null);
  return {
    arena: p,
    root,
    body,
    ...(resume !== undefined ? { resume } : {}),
    ...(grammarBody !== undefined ? { grammarBody } : {}),
    ...(grammarRoot !== undefined ? { grammarRoot } : {}),
    ...(lazyGrammarRoot !== undefined ? { lazyGrammarRoot } : {}),
    reasoningEnd: reasoning === null ? null : core(a.reasoning.end),
    reasoningStart: reasoning === null || core(a.reasoning.start) === "" ? null : core(a.reasoning.start),
    constrained: req.jsonSchema !== null || useTools,
    lazy: req.jsonSchema === null && useTools && req.toolChoice === "auto",
    mapping: {
      idAfterName,
      ignoreModelIds: false,
      callEndRequired: useTools && callsClose(a),
      argumentsRequired: useTools && a.tools.format.mode === "JSON_NATIVE" && argumentsRequired(a),
    },
    format: "generic",
  };
}
