/**
 * What a dedicated handler provides: templates whose output format the generic analysis cannot
 * describe get a hand-written parser definition (the grammar is still derived from it).
 */
import type { TemplateAnalysis } from "../../analysis/index.js";
import type { ChatTemplate } from "../../template/index.js";
import type { ChatMessage } from "../../types.js";
import type { BuiltParser } from "../generic-parser.js";
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

export interface DedicatedHandlerDef {
  readonly name: string;
  /**
   * The markers the format writes around reasoning, as the template renders them (e.g.
   * `[THINK]` … `[/THINK]`), where the analysis has none: a continued message's reasoning is
   * written between them.
   */
  readonly reasoning?: { start: string; end: string };
  /** What the format writes before a turn's content (Functionary v3.2's recipient line `all\n`). */
  readonly contentStart?: string;
  /** Rewrites messages into what the template renders (e.g. reasoning into its own field). */
  adaptMessages?(messages: ChatMessage[]): ChatMessage[];
  build(req: NormalizedRequest, context: DedicatedContext): DedicatedBuild;
}
