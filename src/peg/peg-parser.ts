/**
 * PEG parsing on complete and partial input, resumable over a growing stream.
 *
 * Partial input: every combinator that would need to look past the end of a non-final input
 * answers "need more input" instead of succeeding or failing, and that answer propagates up
 * (a choice never moves on to a later alternative while an earlier one still needs input), so
 * a prefix never commits to a branch the full text could reject. The partial tree marks the
 * tags/captures still open with `incomplete: true`.
 *
 * Streaming in linear time: results are memoised per (node, position) together with whether
 * they looked at the end of the input. Input only grows, so a result that never touched the end
 * stays valid forever; one that did is recomputed on the next feed, and the scanning nodes
 * (`until`, `chars`, `space`, repetitions) resume from where they stopped instead of starting
 * over. Each feed therefore re-evaluates only the nodes on the path to the end of the input and
 * scans only the new characters: total parsing work over a stream is O(length + feeds × depth).
 * The text itself lives in an append-only buffer (peg-text.ts: `input += chunk` would make V8
 * copy the whole text on every chunk), and the trees returned share the node lists of finished
 * repetitions instead of copying them (peg-tree.ts), so each snapshot costs O(depth) to build
 * and stays valid after later feeds.
 */
import { rangesContain } from "../grammar/internal.js";
import type { PegArena } from "./peg-arena.js";
import type { PegId, PegNode } from "./peg-nodes.js";
import { PegText, partialDelimiter, type PegTextSource } from "./peg-text.js";
import {
  NO_NODES,
  TreeNode,
  concatNodes,
  prefixOf,
  pushNodes,
  type PegNodeList,
  type PegTreeNode,
} from "./peg-tree.js";
import { type PegParseResult, type PegStatus, StreamResult, TextPrefix } from "./peg-result.js";

const FAIL = 0;
const OK = 1;
const MORE = 2;
type Status = typeof FAIL | typeof OK | typeof MORE;

interface Outcome {
  readonly s: Status;
  readonly end: number;
  readonly nodes: PegNodeList;
}

interface Entry {
  out: Outcome;
  /** The evaluation looked at the end of the input. */
  eof: boolean;
  len: number;
  final: boolean;
  resume: unknown;
}

const SPACE_RANGES = [
  [9, 10],
  [13, 13],
  [32, 32],
] as const;

/**
 * Thrown when a rule calls itself at the same position (left recursion).
 *
 * @example
 * p.rule("e", () => p.seq(p.ref("e"), p.literal("+"))); // parsing it throws PegLeftRecursionError
 */
export class PegLeftRecursionError extends Error {
  constructor(rule: string, pos: number) {
    super(`PEG rule ${JSON.stringify(rule)} is left-recursive (re-entered at offset ${pos})`);
    this.name = "PegLeftRecursionError";
  }
}

/**
 * How deep evaluations may nest: about 200 levels of JSON nesting, far past anything a tool call
 * means, and well inside V8's default stack.
 */
const MAX_EVAL_DEPTH = 1000;

class Engine {
  input = new PegText();
  final = false;
  private readonly memo = new Map<number, Entry>();
  private eof = false;
  private resumeOut: unknown = undefined;
  private readonly active = new Set<number>();
  /** Memoised evaluations in progress inside one another (bounded by MAX_EVAL_DEPTH). */
  private depth = 0;
  furthest = 0;
  /** Work counter: node evaluations, characters scanned and tree nodes copied into results (for checking linearity). */
  work = 0;
  /** nextIndex's finds, for the text they were made in (which only grows). */
  private readonly nextDelimiter = new Map<string, { from: number; at: number; length: number }>();
  private delimiterText: PegText | null = null;
  private readonly refTarget: Int32Array;

  constructor(
    private readonly arena: PegArena,
    readonly root: PegId,
  ) {
    arena.validate();
    this.refTarget = new Int32Array(arena.size).fill(-1);
    for (let i = 0; i < arena.size; i++) {
      const n = arena.node(i);
      if (n.type === "ref") this.refTarget[i] = arena.ruleNode(n.name)!;
    }
  }

  parse(): PegParseResult {
    this.eof = false;
    const out = this.eval(this.root, 0);
    let status: PegStatus = out.s === OK ? "success" : out.s === MORE ? "need-more" : "fail";
    if (out.s === OK && out.end < this.input.length) {
      status = "fail";
      this.furthest = Math.max(this.furthest, out.end);
    }
    return new StreamResult(status, out.end, out.nodes, this.furthest, new TextPrefix(this.input, this.input.length));
  }

  private eval(id: PegId, pos: number): Outcome {
    const node = this.arena.node(id);
    switch (node.type) {
      case "literal":
        return this.literal(node.text, pos);
      case "any":
        return this.any(pos);
      case "eps":
        return { s: OK, end: pos, nodes: NO_NODES };
      case "end":
        if (pos < this.input.length) return this.failAt(pos);
        this.eof = true;
        return { s: this.final ? OK : MORE, end: pos, nodes: NO_NODES };
      case "ref":
        return this.eval(this.refTarget[id]!, pos);
      default:
        return this.memoized(id, node, pos);
    }
  }

  private memoized(id: PegId, node: PegNode, pos: number): Outcome {
    const key = pos * this.arena.size + id;
    const entry = this.memo.get(key);
    let resume: unknown;
    if (entry) {
      if (!entry.eof) return entry.out;
      if (entry.len === this.input.length && entry.final === this.final) {
        this.eof = true;
        return entry.out;
      }
      resume = entry.resume;
    }
    if (this.active.has(key)) throw new PegLeftRecursionError(node.type === "rule" ? node.name : node.type, pos);
    // Text nested deeper than the bound (a looping model writing `[[[[...`) fails to parse there
    // instead of overflowing the stack: the caller recovers it like any other failure.
    if (this.depth >= MAX_EVAL_DEPTH) return this.failAt(pos);
    this.depth++;
    this.active.add(key);
    this.work++;
    const outer = this.eof;
    this.eof = false;
    let out: Outcome;
    try {
      out = this.run(node, pos, resume);
    } finally {
      this.active.delete(key);
      this.depth--;
    }
    const resumable = node.type === "chars" || node.type === "until" || node.type === "repeat" || node.type === "space";
    const touched = this.eof;
    this.memo.set(key, {
      out,
      eof: touched,
      len: this.input.length,
      final: this.final,
      resume: resumable ? this.resumeOut : undefined,
    });
    this.eof = outer || touched;
    return out;
  }

  private failAt(pos: number): Outcome {
    if (pos > this.furthest) this.furthest = pos;
    return { s: FAIL, end: pos, nodes: NO_NODES };
  }

  private atEnd(pos: number): Outcome {
    this.eof = true;
    return this.final ? this.failAt(pos) : { s: MORE, end: pos, nodes: NO_NODES };
  }

  private literal(text: string, pos: number): Outcome {
    const input = this.input;
    for (let i = 0; i < text.length; i++) {
      if (pos + i >= input.length) return this.atEnd(input.length);
      if (input.charCodeAt(pos + i) !== text.charCodeAt(i)) return this.failAt(pos + i);
    }
    return { s: OK, end: pos + text.length, nodes: NO_NODES };
  }

  private any(pos: number): Outcome {
    if (pos >= this.input.length) return this.atEnd(pos);
    const cp = this.input.codePointAt(pos)!;
    return { s: OK, end: pos + (cp > 0xffff ? 2 : 1), nodes: NO_NODES };
  }

  private run(node: PegNode, pos: number, resume: unknown): Outcome {
    switch (node.type) {
      case "chars":
        return this.chars(node.ranges, node.negated, node.min, node.max, pos, resume as CharsResume | undefined);
      case "space":
        return this.chars(SPACE_RANGES, false, 0, null, pos, resume as CharsResume | undefined);
      case "until":
        return this.until(node.delimiters, pos, resume as number | undefined);
      case "rest":
        this.eof = true;
        return { s: this.final ? OK : MORE, end: this.input.length, nodes: NO_NODES };
      case "sequence": {
        let p = pos;
        let nodes: PegNodeList = NO_NODES;
        for (const item of node.items) {
          const r = this.eval(item, p);
          if (r.s === FAIL) return r;
          nodes = concatNodes(nodes, r.nodes);
          p = r.end;
          if (r.s === MORE) return { s: MORE, end: p, nodes };
        }
        return { s: OK, end: p, nodes };
      }
      case "choice":
        for (const item of node.items) {
          const r = this.eval(item, pos);
          if (r.s !== FAIL) return r;
        }
        return { s: FAIL, end: pos, nodes: NO_NODES };
      case "repeat":
        return this.repeat(node.item, node.min, node.max, pos, resume as RepeatResume | undefined);
      case "not": {
        const r = this.eval(node.item, pos);
        if (r.s === OK) return this.failAt(pos);
        return { s: r.s === FAIL ? OK : MORE, end: pos, nodes: NO_NODES };
      }
      case "and": {
        const r = this.eval(node.item, pos);
        return { s: r.s, end: pos, nodes: NO_NODES };
      }
      case "rule":
      case "json":
      case "schema":
        return this.eval(node.item, pos);
      case "lenient":
        return this.eval(node.parse, pos);
      case "tag":
      case "capture": {
        const r = this.eval(node.item, pos);
        if (r.s === FAIL) return r;
        const tree = new TreeNode(
          node.type,
          node.name,
          pos,
          r.end,
          r.s === MORE,
          node.type === "tag" ? r.nodes : NO_NODES,
        );
        return { s: r.s, end: r.end, nodes: [tree] };
      }
      case "atomic": {
        const r = this.eval(node.item, pos);
        return r.s === MORE ? { s: MORE, end: pos, nodes: NO_NODES } : r;
      }
      case "literal":
      case "any":
      case "eps":
      case "end":
      case "ref":
        throw new Error(`PEG engine: ${node.type} is evaluated without memoisation`);
    }
  }

  private chars(
    ranges: readonly (readonly [number, number])[],
    negated: boolean,
    min: number,
    max: number | null,
    pos: number,
    resume: CharsResume | undefined,
  ): Outcome {
    const input = this.input;
    let p = resume?.p ?? pos;
    let count = resume?.count ?? 0;
    for (;;) {
      if (max !== null && count >= max) break;
      if (p >= input.length) {
        this.eof = true;
        this.resumeOut = { p, count } satisfies CharsResume;
        if (!this.final) return { s: MORE, end: p, nodes: NO_NODES };
        return count >= min ? { s: OK, end: p, nodes: NO_NODES } : this.failAt(p);
      }
      const cp = input.codePointAt(p)!;
      this.work++;
      if (rangesContain(ranges, cp) === negated) break;
      p += cp > 0xffff ? 2 : 1;
      count++;
    }
    this.resumeOut = undefined;
    return count >= min ? { s: OK, end: p, nodes: NO_NODES } : this.failAt(p);
  }

  private until(delimiters: readonly string[], pos: number, resume: number | undefined): Outcome {
    const input = this.input;
    const from = resume ?? pos;
    let found = -1;
    for (const d of delimiters) {
      const i = this.nextIndex(d, from);
      if (i >= 0 && (found < 0 || i < found)) found = i;
    }
    if (this.final) {
      this.resumeOut = undefined;
      if (found < 0) this.eof = true;
      return { s: OK, end: found >= 0 ? found : input.length, nodes: NO_NODES };
    }
    // Streamed text stops before a delimiter that may be arriving at the very end, also one that begins before the
    // delimiter found (`<|sep|>\n\nfunction call<` before `function call`), until it is known.
    let longest = 0;
    for (const d of delimiters) if (d.length > longest) longest = d.length;
    const tail = Math.max(pos, input.length - longest + 1);
    const starting = partialDelimiter(delimiters, input, Math.max(from, tail), found >= 0 ? found : input.length);
    if (found >= 0 && starting < 0) {
      this.resumeOut = undefined;
      return { s: OK, end: found, nodes: NO_NODES };
    }
    this.eof = true;
    this.resumeOut = tail;
    return { s: MORE, end: starting >= 0 ? starting : input.length, nodes: NO_NODES };
  }

  /**
   * The first `d` at or after `from`. Text that stops at one delimiter and goes on (a `{` that opens no call)
   * asks again for the others from further on: where each was found, or that it was not up to the text's
   * length, is kept, so each character is scanned once per delimiter however many times text stops.
   */
  private nextIndex(d: string, from: number): number {
    const input = this.input;
    if (this.delimiterText !== input) {
      this.nextDelimiter.clear();
      this.delimiterText = input;
    }
    const seen = this.nextDelimiter.get(d);
    let start = from;
    if (seen !== undefined && from >= seen.from) {
      if (seen.at >= from) return seen.at;
      // Not in the text as it was: only what came since (and a delimiter across its old end) is new.
      if (seen.at < 0) start = Math.max(from, seen.length - d.length + 1);
    }
    const at = input.indexOf(d, start);
    this.work += Math.max(0, (at >= 0 ? at + d.length : input.length) - start);
    this.nextDelimiter.set(d, { from, at, length: input.length });
    return at;
  }

  private repeat(item: PegId, min: number, max: number | null, pos: number, resume: RepeatResume | undefined): Outcome {
    // Iterations that completed without looking at the end of the input are final: their nodes
    // go to an append-only array kept across feeds, which snapshots share (see peg-tree.ts).
    const stable: RepeatResume = resume ?? { count: 0, p: pos, nodes: [] };
    let count = stable.count;
    let p = stable.p;
    /** Nodes of completed iterations that did look at the end (they may change next feed). */
    let extra: PegTreeNode[] | null = null;
    for (;;) {
      if (max !== null && count >= max) break;
      const outer = this.eof;
      this.eof = false;
      const r = this.eval(item, p);
      const touched = this.eof;
      this.eof = outer || touched;
      if (r.s === FAIL) break;
      if (r.s === MORE) {
        this.resumeOut = stable;
        return {
          s: MORE,
          end: r.end,
          nodes: concatNodes(concatNodes(prefixOf(stable.nodes), extra ?? NO_NODES), r.nodes),
        };
      }
      if (r.end === p) break; // no progress: stop rather than loop
      count++;
      p = r.end;
      this.work += r.nodes.length;
      if (!touched && extra === null) {
        pushNodes(stable.nodes, r.nodes);
        stable.count = count;
        stable.p = p;
      } else pushNodes((extra ??= []), r.nodes);
    }
    this.resumeOut = stable;
    if (count < min) return this.failAt(p);
    return { s: OK, end: p, nodes: concatNodes(prefixOf(stable.nodes), extra ?? NO_NODES) };
  }
}

interface CharsResume {
  p: number;
  count: number;
}

interface RepeatResume {
  count: number;
  p: number;
  nodes: PegTreeNode[];
}

/**
 * Parses `input` with `root`. With `partial: true` the input is a prefix of a longer text:
 * the status is "need-more" while it could still become a match.
 *
 * @example
 * const r = parsePeg(arena, root, "Hello <call>{\"a\":", { partial: true });
 * r.status; // "need-more"
 */
export function parsePeg(
  arena: PegArena,
  root: PegId,
  input: string,
  options: { partial?: boolean } = {},
): PegParseResult {
  if (typeof input !== "string") throw new TypeError(`parsePeg(input): input must be a string, got ${typeof input}`);
  const e = new Engine(arena, root);
  e.input = new PegText(input);
  e.final = !(options.partial ?? false);
  return e.parse();
}

/**
 * Incremental parsing of a growing text (e.g. model output as it streams). Each `feed` re-uses
 * everything earlier feeds established; `finish` parses the text as complete.
 *
 * @example
 * const s = new PegStreamParser(arena, root);
 * s.feed("<think>hm"); // status "need-more", reasoning capture incomplete
 * s.feed("</think>Hi");
 * s.finish();          // status "success"
 */
export class PegStreamParser {
  private readonly engine: Engine;
  private done = false;

  constructor(arena: PegArena, root: PegId) {
    this.engine = new Engine(arena, root);
  }

  /** The text received so far. */
  get text(): string {
    return this.engine.input.toString();
  }

  /** The text received so far, for slicing without building the whole string. */
  get source(): PegTextSource {
    return this.engine.input;
  }

  /** Parsing work done so far (evaluations plus characters scanned); grows linearly with the text. */
  get work(): number {
    return this.engine.work;
  }

  /** Appends text and parses what has arrived so far as a prefix. */
  feed(chunk: string): PegParseResult {
    if (typeof chunk !== "string") throw new TypeError(`feed(chunk): chunk must be a string, got ${typeof chunk}`);
    if (this.done) throw new RangeError("feed(): the stream is already finished");
    this.engine.input.append(chunk);
    this.engine.final = false;
    return this.engine.parse();
  }

  /** Parses the text received so far as the complete input. */
  finish(): PegParseResult {
    this.done = true;
    this.engine.final = true;
    return this.engine.parse();
  }
}
