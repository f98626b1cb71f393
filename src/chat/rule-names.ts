/**
 * Names of the PEG rules the chat builders define per tool argument. A rule name is looked up by
 * name (the arena refuses a second rule of one name), so distinct argument names must give distinct
 * rule names, whatever characters they hold.
 */

/**
 * `key` as part of a rule name: ASCII letters, digits and "-" as they are, "_" doubled, any other
 * character as its code point between underscores. No two keys meet: plain replacement made `城市`
 * and `天気` one name ("__").
 *
 * @example
 * ruleNamePart("user_id"); // "user__id"
 * ruleNamePart("城市"); // "_57ce__5e02_"
 */
export function ruleNamePart(key: string): string {
  return key.replace(/[^A-Za-z0-9-]/gu, (c) => (c === "_" ? "__" : `_${c.codePointAt(0)!.toString(16)}_`));
}

/**
 * The rule name of argument `key` of tool number `toolIndex` (see {@link ruleNamePart}).
 *
 * @example
 * argRuleName(0, "city"); // "tool-0-arg-city"
 */
export function argRuleName(toolIndex: number, key: string): string {
  return `tool-${toolIndex}-arg-${ruleNamePart(key)}`;
}
