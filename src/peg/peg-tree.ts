/**
 * Parse trees whose node lists are shared between the snapshots of a stream.
 *
 * Why: a stream parse returns a fresh tree on every chunk. Copying the sibling lists into new
 * arrays each time would cost O(siblings) per chunk (a thousand array items or parallel calls
 * make that quadratic). Instead completed repetitions live in an append-only array, a snapshot
 * sees a fixed-length prefix of it, and lists are joined by O(1) concatenation nodes; arrays
 * are built only when someone reads `children` / `nodes`.
 */

/** A read-only list of tree nodes: arrays are one; streaming snapshots use cheaper views. */
export interface PegNodeList {
  readonly length: number;
  at(index: number): PegTreeNode | undefined;
}

/** A node of the result tree. */
export interface PegTreeNode {
  /** `tag`: structural, with children; `capture`: a leaf holding text. */
  readonly kind: "tag" | "capture";
  readonly name: string;
  /** Offsets into the input (UTF-16 code units); the text is `input.slice(start, end)`. */
  readonly start: number;
  readonly end: number;
  /** True while the node's match is not finished (partial input). */
  readonly incomplete: boolean;
  /** The children as an array (built on each read: streaming consumers read `childList`). */
  readonly children: readonly PegTreeNode[];
  /** The children without building an array. */
  readonly childList: PegNodeList;
}

export const NO_NODES: readonly PegTreeNode[] = [];

/** The list as an array (arrays are returned as they are). */
export function nodeArray(list: PegNodeList): readonly PegTreeNode[] {
  if (Array.isArray(list)) return list as readonly PegTreeNode[];
  const out: PegTreeNode[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = list.at(i)!;
  return out;
}

/** Appends every node of `list` to `target`. */
export function pushNodes(target: PegTreeNode[], list: PegNodeList): void {
  for (let i = 0; i < list.length; i++) target.push(list.at(i)!);
}

/** The first `length` nodes of an array that only grows (a stable snapshot of it). */
class ArrayPrefix implements PegNodeList {
  constructor(
    private readonly items: readonly PegTreeNode[],
    readonly length: number,
  ) {}

  at(index: number): PegTreeNode | undefined {
    return index >= 0 && index < this.length ? this.items[index] : undefined;
  }
}

/** Two lists one after the other. */
class NodeConcat implements PegNodeList {
  readonly length: number;

  constructor(
    private readonly first: PegNodeList,
    private readonly second: PegNodeList,
  ) {
    this.length = first.length + second.length;
  }

  at(index: number): PegTreeNode | undefined {
    if (index < 0) return undefined;
    const n = this.first.length;
    return index < n ? this.first.at(index) : this.second.at(index - n);
  }
}

/** A snapshot of the current contents of an append-only array. */
export function prefixOf(items: readonly PegTreeNode[]): PegNodeList {
  return items.length === 0 ? NO_NODES : new ArrayPrefix(items, items.length);
}

/** `a` then `b`, in O(1). */
export function concatNodes(a: PegNodeList, b: PegNodeList): PegNodeList {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return new NodeConcat(a, b);
}

/** A tag or capture. */
export class TreeNode implements PegTreeNode {
  constructor(
    readonly kind: "tag" | "capture",
    readonly name: string,
    readonly start: number,
    readonly end: number,
    readonly incomplete: boolean,
    readonly childList: PegNodeList,
  ) {}

  get children(): readonly PegTreeNode[] {
    return nodeArray(this.childList);
  }
}
