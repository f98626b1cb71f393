/**
 * Size budgets of the converter, as counts. A pattern alternating 100,000 words or an object of
 * 10,000 properties converts into a grammar that every engine must then walk at each token
 * (one stack per alternative): generation stalls for minutes. Beyond these budgets the converter
 * refuses the schema with a SchemaError naming the pointer and the limit. Real schemas stay far
 * below (MaskBench's largest pattern, the uri-reference format, weighs about 2,300 items; its
 * largest object declares 230 properties).
 */
import { MAX_REPETITION } from "../gbnf-parse.js";
import type { RegexNode } from "../regex/regex-ast.js";
import { SchemaError } from "./schema-error.js";

/** Most regex items one pattern may weigh, repetitions expanded (see {@link patternWeight}). */
export const MAX_PATTERN_ITEMS = 20_000;

/** Most properties one object may declare (`properties` and `required` keys together). */
export const MAX_OBJECT_PROPERTIES = 1000;

/**
 * How many regex items `node` stands for once bounded repetitions are expanded, as the automaton
 * and the grammar engines expand them (counts above 2000 are unbounded, as in GBNF). Stops
 * counting past `cap` so a hostile nesting of repetitions cannot overflow the number.
 *
 * @example
 * patternWeight(parseRegex("^(ab|cd){3}$")); // 17
 */
export function patternWeight(node: RegexNode, cap = Number.MAX_SAFE_INTEGER): number {
  switch (node.type) {
    case "seq":
    case "alt": {
      let total = 1;
      for (const item of node.items) {
        total += patternWeight(item, cap);
        if (total > cap) return total;
      }
      return total;
    }
    case "group":
      return patternWeight(node.item, cap);
    case "look":
      return 1 + patternWeight(node.item, cap);
    case "repeat": {
      const copies = node.max !== null && node.max <= MAX_REPETITION ? node.max : node.min + 1;
      return 1 + patternWeight(node.item, cap) * Math.max(1, Math.min(copies, MAX_REPETITION));
    }
    default:
      return 1;
  }
}

/**
 * Throws a {@link SchemaError} when the pattern at `pointer` weighs more than {@link MAX_PATTERN_ITEMS}.
 *
 * @example
 * checkPatternBudget(parseRegex("^(a|b)$"), "#/pattern", "pattern"); // fine
 */
export function checkPatternBudget(node: RegexNode, pointer: string, keyword: string): void {
  const weight = patternWeight(node, MAX_PATTERN_ITEMS);
  if (weight > MAX_PATTERN_ITEMS)
    throw new SchemaError(
      pointer,
      keyword,
      `the pattern expands to more than ${MAX_PATTERN_ITEMS} regex items (the converter's budget)`,
    );
}

/**
 * Throws a {@link SchemaError} when the object at `pointer` declares more than {@link MAX_OBJECT_PROPERTIES}.
 *
 * @example
 * checkObjectBudget(12, "#/properties/user"); // fine
 */
export function checkObjectBudget(count: number, pointer: string): void {
  if (count > MAX_OBJECT_PROPERTIES)
    throw new SchemaError(
      pointer,
      "properties",
      `declares ${count} properties, more than ${MAX_OBJECT_PROPERTIES} per object (the converter's budget)`,
    );
}
