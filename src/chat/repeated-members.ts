/**
 * Members a model wrote more than once. JSON.parse keeps only a key's last value; these read every member as
 * written: a member element written again inside an object of nested elements (MiniMax M3's
 * `<tag>a</tag><tag>b</tag>`) is a list of its values, and so is a tool's argument written again where its schema
 * declares a list (`<parameter=q>a</parameter><parameter=q>b</parameter>`).
 */

/**
 * The members of a compact JSON object's text, in order, duplicates kept: each key and its value's text.
 *
 * @example
 * jsonMembers('{"a":1,"b":"x,y","a":[2]}'); // [["a", "1"], ["b", '"x,y"'], ["a", "[2]"]]
 */
export function jsonMembers(text: string): [string, string][] {
  const out: [string, string][] = [];
  let depth = 0;
  let key: string | null = null;
  let valueStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1 && key === null && valueStart < 0) key = JSON.parse(text.slice(i, end + 1)) as string;
      i = end;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]" || (c === "," && depth === 1)) {
      if (depth === 1 && key !== null && valueStart >= 0) out.push([key, text.slice(valueStart, i).trim()]);
      if (c === ",") [key, valueStart] = [null, -1];
      else depth--;
    } else if (c === ":" && depth === 1 && valueStart < 0) valueStart = i + 1;
  }
  return out;
}

/** The index of the quote closing the JSON string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
  return i;
}

/**
 * A compact JSON object written with a key more than once, with each such key's values in a list, in the order
 * written; `items` gives the items a repeated key's value adds (default: the value itself).
 *
 * @example
 * repeatedAsLists('{"tag":"a","n":1,"tag":"b"}'); // '{"tag":["a","b"],"n":1}'
 */
export function repeatedAsLists(
  objectText: string,
  items: (key: string, value: unknown) => unknown[] = (_key, value) => [value],
): string {
  const members = jsonMembers(objectText);
  const counts = new Map<string, number>();
  for (const [key] of members) counts.set(key, (counts.get(key) ?? 0) + 1);
  const grouped = new Map<string, unknown>();
  for (const [key, text] of members) {
    const value = JSON.parse(text) as unknown;
    if (counts.get(key) === 1) grouped.set(key, value);
    else grouped.set(key, [...((grouped.get(key) as unknown[] | undefined) ?? []), ...items(key, value)]);
  }
  // fromEntries: a key such as "__proto__" stays a member.
  return JSON.stringify(Object.fromEntries(grouped));
}
