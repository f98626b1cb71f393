/**
 * What a PEG parse returns: its status, the tree of tags and captures, and a view of the text read;
 * and the helpers that read a tree (a node's text, the nodes of a name).
 */
import { type PegNodeList, type PegTreeNode, nodeArray } from "./peg-tree.js";
import type { PegText, PegTextSource } from "./peg-text.js";

/** `success`: the whole input matched; `need-more`: a prefix of a possible match; `fail`: no match. */
export type PegStatus = "success" | "need-more" | "fail";

/** The result of a parse. */
export interface PegParseResult {
  readonly status: PegStatus;
  /** How far the input was recognised. */
  readonly end: number;
  /** Top-level tree nodes (tags and captures), in input order. */
  readonly nodes: readonly PegTreeNode[];
  /** The same without building an array (what streaming consumers should read). */
  readonly nodeList: PegNodeList;
  /** The text parsed (built on first access from a stream: prefer `source` for slices). */
  readonly input: string;
  /** The text parsed, for slicing without building the whole string (`source.slice(start, end)`). */
  readonly source: PegTextSource;
  /** On failure: the furthest offset any terminal reached before failing. */
  readonly failAt: number;
}

/** A view of the first `length` code units of a buffer that only grows (a stable snapshot). */
export class TextPrefix implements PegTextSource {
  constructor(
    private readonly text: PegText,
    readonly length: number,
  ) {}

  slice(start: number, end: number = this.length): string {
    return this.text.slice(start, Math.min(end, this.length));
  }

  toString(): string {
    return this.slice(0);
  }
}

/** A parse result over a prefix of a growing text: `input` is built only if read. */
export class StreamResult implements PegParseResult {
  private built: string | null = null;
  private array: readonly PegTreeNode[] | null = null;

  constructor(
    readonly status: PegStatus,
    readonly end: number,
    readonly nodeList: PegNodeList,
    readonly failAt: number,
    readonly source: TextPrefix,
  ) {}

  get nodes(): readonly PegTreeNode[] {
    this.array ??= nodeArray(this.nodeList);
    return this.array;
  }

  get input(): string {
    this.built ??= this.source.toString();
    return this.built;
  }
}

/**
 * The text of a tree node.
 *
 * @example
 * pegText(result, result.nodes[0]!); // "Hello "
 */
export function pegText(result: PegParseResult, node: PegTreeNode): string {
  return result.source.slice(node.start, node.end);
}

/**
 * All nodes named `name` in a (sub)tree, depth first.
 *
 * @example
 * findPegNodes(result.nodes, "tool_name").map((n) => pegText(result, n));
 */
export function findPegNodes(nodes: readonly PegTreeNode[], name: string): PegTreeNode[] {
  const out: PegTreeNode[] = [];
  const walk = (list: readonly PegTreeNode[]): void => {
    for (const n of list) {
      if (n.name === name) out.push(n);
      walk(n.children);
    }
  };
  walk(nodes);
  return out;
}
