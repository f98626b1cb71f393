/**
 * The PEG combinator arena: combinators are plain data nodes (`type` discriminant) stored in
 * an array and referring to each other by id. One definition drives both the parser
 * (`peg-parser.ts`) and the grammar for constrained decoding (`peg-gbnf.ts`).
 */
import type { CodeRange } from "../grammar/internal.js";
import type { JsonSchema } from "../types.js";

/** Id of a node in its {@link PegArena}. */
export type PegId = number;

/**
 * A combinator node; `type` is the discriminant. Comments give the PEG notation.
 *
 * @example
 * import { PegArena, type PegNode } from "toolwright/peg";
 * const p = new PegArena();
 * const node: PegNode = p.node(p.literal("hi")); // { type: "literal", text: "hi" }
 */
export type PegNode =
  /** `"text"` */
  | { readonly type: "literal"; readonly text: string }
  /** `[ranges]{min,max}` / `[^ranges]{min,max}` (max null: unbounded), greedy. */
  | {
      readonly type: "chars";
      readonly ranges: readonly CodeRange[];
      readonly negated: boolean;
      readonly min: number;
      readonly max: number | null;
    }
  /** `.` */
  | { readonly type: "any" }
  /** `(!D1 !D2 ... .)*`: everything up to the first delimiter (not consumed). */
  | { readonly type: "until"; readonly delimiters: readonly string[] }
  /** `.*` */
  | { readonly type: "rest" }
  /** `A B C` */
  | { readonly type: "sequence"; readonly items: readonly PegId[] }
  /** `A / B / C` (ordered choice) */
  | { readonly type: "choice"; readonly items: readonly PegId[] }
  /** `A{min,max}` greedy (max null: unbounded) */
  | { readonly type: "repeat"; readonly item: PegId; readonly min: number; readonly max: number | null }
  /** `!A` */
  | { readonly type: "not"; readonly item: PegId }
  /** `&A` */
  | { readonly type: "and"; readonly item: PegId }
  /** `name <- body`; referenced through `ref`. A trigger rule starts the lazy grammar. */
  | { readonly type: "rule"; readonly name: string; readonly item: PegId; readonly trigger: TriggerSpec | null }
  /** `name` */
  | { readonly type: "ref"; readonly name: string }
  /** Any JSON value; `item` is its parser (built from combinators). */
  | { readonly type: "json"; readonly item: PegId }
  /** `item`, whose grammar is the JSON Schema's (or, `raw`, the schema's string content unquoted). */
  | {
      readonly type: "schema";
      readonly item: PegId;
      readonly schema: JsonSchema;
      readonly name: string;
      readonly raw: boolean;
      readonly grammar?: PegId;
    }
  /** A node in the result tree whose children are the nodes inside `item`. */
  | { readonly type: "tag"; readonly name: string; readonly item: PegId }
  /** A leaf in the result tree holding the text `item` matched. */
  | { readonly type: "capture"; readonly name: string; readonly item: PegId }
  /**
   * `parse` when parsing, `grammar` in the GBNF: the parser reads variations (other whitespace) that
   * the grammar does not let a model write, so a constrained model writes what the parser's other
   * rules (literal stop words) expect.
   */
  | { readonly type: "lenient"; readonly parse: PegId; readonly grammar: PegId }
  /** `item`, but a partial match of it yields no tree nodes. */
  | { readonly type: "atomic"; readonly item: PegId }
  /**
   * `[ \t\r\n]*`. `json`: the space sits in JSON text, right inside a bracket or before `:` or `,` ("tight"), or after
   * `:` or `,` ("separator"), so the grammar may write a learned JSON spelling there instead of free space.
   */
  | { readonly type: "space"; readonly json?: "tight" | "separator" }
  /** `ε` */
  | { readonly type: "eps" }
  /** `!.` (end of input) */
  | { readonly type: "end" };

/** What activates a lazy grammar: a word (the rule's leading literal by default) or a regex. */
export type TriggerSpec = { readonly word: string } | { readonly pattern: string } | { readonly auto: true };

/** Options of {@link PegArena.rule}. */
export interface RuleOptions {
  /**
   * Marks a trigger point for lazy grammars: `true` uses the rule's leading literal as the
   * trigger word; `{ word }` or `{ pattern }` give it explicitly.
   */
  trigger?: boolean | { word: string } | { pattern: string };
}

/** Options of {@link PegArena.schema}. */
export interface SchemaNodeOptions {
  /** Rule name for the schema's grammar (default "schema"). */
  name?: string;
  /** The text is the raw (unquoted) string value, e.g. a tagged tool argument. */
  raw?: boolean;
  /**
   * The grammar is this node's rather than the schema converter's: a value in a syntax the
   * converter does not speak (Python literals, Gemma 4 values) typed by the schema, while the
   * parser still reads `item` (whatever the model wrote).
   */
  grammar?: PegId;
}
