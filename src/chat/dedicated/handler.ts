/**
 * What a dedicated handler provides: templates whose output format the generic analysis cannot
 * describe get a hand-written parser definition (the grammar is still derived from it).
 */
import type { TemplateAnalysis } from "../../analysis/index.js";
import type { ChatTemplate } from "../../template/index.js";
import type { ChatMessage } from "../../types.js";
import type { PegArena, PegId } from "../../peg/index.js";
import type { BuildContext } from "../build-helpers.js";
import type { BuiltParser } from "../generic-parser.js";
import type { ChatMappingOptions } from "../types.js";
import type { ReasoningPrefixState } from "../prompt.js";
import type { NormalizedRequest } from "../request.js";

/** A dedicated handler's parser and what goes with it. */
export interface DedicatedBuild {
  built: BuiltParser;
  /** Text of the prompt the parser reads before the output. */
  prefix: string;
  /** "closed": a strict grammar starts at `built.body`; "open": deferred past reasoning. */
  state: ReasoningPrefixState;
  preservedTokens: string[];
  /** Also keep the analysis' preserved tokens. */
  keepAnalysisTokens?: boolean;
}

/** What a handler may look at besides the request. */
export interface DedicatedContext {
  generationPrompt: string;
  analysis: TemplateAnalysis;
  template: ChatTemplate;
}

/**
 * A model family whose template llama.cpp routes to a hand-written handler (reported as the
 * analysis' `dedicatedHandler`), e.g. "gpt-oss", "kimi-k2".
 */
export type DedicatedHandler = string;

/**
 * One format: how it is recognised, how it adapts messages, and how its output is parsed. The
 * registry (index.ts) is derived from these modules; detection tries them in registry order.
 */
export interface DedicatedHandlerDef {
  readonly name: string;
  /** The families this format serves: what `detect` may return (one module may serve kin). */
  readonly handles: readonly DedicatedHandler[];
  /** The family this template source belongs to, by substrings of the source, or null. */
  detect(source: string): DedicatedHandler | null;
  /**
   * Set when the generic generator reads this format (no `build`): why it can. The format is
   * still detected, so the analysis reports it as llama.cpp does.
   */
  readonly generic?: string;
  /**
   * Rewrites the analysis' probe conversations the way this family's templates expect them
   * (Kimi K2 writes the caller's call id where the name goes).
   */
  probeMessages?<M extends object>(messages: readonly M[]): M[];
  /**
   * The markers the format writes around reasoning, as the template renders them (e.g.
   * `[THINK]` … `[/THINK]`), where the analysis has none or only part of them (Kimi K3's `<|sep|>` …
   * `<|close|>`): a continued message's reasoning is written between them, and `enableThinking` reads
   * a prompt's reasoning with them (thinking-switch.ts).
   */
  readonly reasoning?: { start: string; end: string };
  /** What the format writes before a turn's content (Functionary v3.2's recipient line `all\n`). */
  readonly contentStart?: string;
  /** Rewrites messages into what the template renders (e.g. reasoning into its own field). */
  adaptMessages?(messages: ChatMessage[]): ChatMessage[];
  /**
   * The format's own parser. Absent: the handler only adapts history (adaptMessages) and the
   * generic parser reads the output.
   */
  build?(req: NormalizedRequest, context: DedicatedContext): DedicatedBuild;
}

/**
 * Whether `source` contains every needle: detection signatures are substrings of the template
 * source, as llama.cpp's are.
 *
 * @example
 * sourceHas(source, "<|channel|>"); // GPT-OSS
 */
export function sourceHas(source: string, ...needles: string[]): boolean {
  return needles.every((n) => source.includes(n));
}

/** What a dedicated format's parser is made of; the rest is derived the same way for every format. */
export interface DedicatedParts {
  /** Reads prefix + output. */
  root: PegId;
  /** What follows the reasoning. */
  body: PegId;
  grammarBody?: PegId;
  grammarRoot?: PegId;
  /** The markers around reasoning the model writes itself (trimmed), when the format has them. */
  reasoningStart?: string;
  reasoningEnd?: string;
  /** The request uses tools (calls may be written). */
  useTools: boolean;
  /** Mapping options beyond the defaults (model ids kept, ids before the arguments). */
  mapping?: Partial<ChatMappingOptions>;
}

/**
 * The parser of a dedicated format `name`: constrained when the request uses tools or a JSON
 * schema, lazy under tool_choice auto, default mapping options.
 *
 * @example
 * const built = dedicatedParser("gemma4", p, req, { root, body, grammarRoot, useTools });
 */
export function dedicatedParser(name: string, p: PegArena, req: NormalizedRequest, parts: DedicatedParts): BuiltParser {
  return {
    arena: p,
    root: parts.root,
    body: parts.body,
    ...(parts.grammarBody !== undefined ? { grammarBody: parts.grammarBody } : {}),
    ...(parts.grammarRoot !== undefined ? { grammarRoot: parts.grammarRoot } : {}),
    reasoningEnd: parts.reasoningEnd ?? null,
    ...(parts.reasoningStart !== undefined ? { reasoningStart: parts.reasoningStart } : {}),
    constrained: req.jsonSchema !== null || parts.useTools,
    lazy: parts.useTools && req.toolChoice === "auto",
    mapping: { idAfterName: false, ignoreModelIds: false, ...parts.mapping },
    format: name,
  };
}

/** What {@link reasoningThenBody} builds a format's parser from. */
export interface ReasoningThenBodyParts {
  /** What the output may open with before its reasoning (default: nothing). */
  lead?: PegId;
  /** The reasoning the parser reads (optional, as the model may write it or not). */
  reasoning: PegId;
  /** The reasoning the grammar allows (default: `reasoning` when the request thinks, else none). */
  grammarReasoning?: PegId;
  /** What follows the reasoning. */
  body: PegId;
  /** The grammar's body when it is not `body` (calls alone under tool_choice "required"). */
  grammarBody?: PegId;
  reasoningStart: string;
  reasoningEnd: string;
  useTools: boolean;
  /** Mapping options beyond the defaults. */
  mapping?: Partial<ChatMappingOptions>;
}

/**
 * The parser of a format whose output is a lead, its reasoning, then a body: the grammar is
 * strict (the lead, the reasoning it allows, then `grammarBody`, or `body` under a JSON schema)
 * where the request constrains the output.
 *
 * @example
 * const built = reasoningThenBody("ministral-3", p, req, {
 *   reasoning, body, grammarBody, reasoningStart: THINK, reasoningEnd: END_THINK, useTools,
 * });
 */
export function reasoningThenBody(
  name: string,
  p: PegArena,
  req: NormalizedRequest,
  parts: ReasoningThenBodyParts,
): BuiltParser {
  const lead = parts.lead === undefined ? [] : [parts.lead];
  const strict = parts.grammarBody ?? (req.jsonSchema !== null ? parts.body : undefined);
  const grammarReasoning = parts.grammarReasoning ?? (req.thinking ? parts.reasoning : undefined);
  return dedicatedParser(name, p, req, {
    root: p.seq(...lead, parts.reasoning, parts.body),
    body: parts.body,
    ...(parts.grammarBody !== undefined ? { grammarBody: parts.grammarBody } : {}),
    ...(strict !== undefined
      ? { grammarRoot: p.seq(...lead, ...(grammarReasoning === undefined ? [] : [grammarReasoning]), strict) }
      : {}),
    reasoningEnd: parts.reasoningEnd,
    reasoningStart: parts.reasoningStart,
    useTools: parts.useTools,
    ...(parts.mapping ? { mapping: parts.mapping } : {}),
  });
}

/**
 * The build context of a dedicated format's calls: the request's tools, at least one call (the handler reads
 * calls only where a call is due), JSON values (no Python literals, no CDATA), a trigger rule; `overrides` for the
 * rest (a grammar copy, Python-literal tagged values).
 *
 * @example
 * const ctx = dedicatedBuildContext(p, req);
 * const grammarCtx = dedicatedBuildContext(p, req, { forGrammar: true, toolTrigger: false });
 */
export function dedicatedBuildContext(
  p: PegArena,
  req: NormalizedRequest,
  overrides: Partial<Omit<BuildContext, "p" | "tools">> = {},
): BuildContext {
  return {
    p,
    tools: req.tools,
    requireCalls: true,
    parallel: req.parallel,
    readsParallel: req.readsParallel,
    pythonValues: false,
    pythonTaggedValues: false,
    toolTrigger: true,
    cdataStrings: false,
    ...overrides,
  };
}
