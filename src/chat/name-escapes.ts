/**
 * Escapes a format writes inside names (a tool's, an argument's): Kimi K3's template writes both as XML
 * attribute values, `&` as `&amp;` and `"` as `&quot;`. The parser and grammar match the escaped spelling;
 * the mapper reads it back (ChatMappingOptions.nameEscapes). Values are not names: they stay as written.
 */

/** Each escape sequence and the character it stands for. */
export type NameEscapes = Readonly<Record<string, string>>;

/** XML attribute escapes of `&` and `"` (Kimi K3's `escape_attr`). */
export const ATTRIBUTE_ESCAPES: NameEscapes = { "&amp;": "&", "&quot;": '"' };

const patterns = new WeakMap<NameEscapes, { escape: RegExp; unescape: RegExp; of: Map<string, string> }>();

function patternsOf(escapes: NameEscapes) {
  let p = patterns.get(escapes);
  if (p === undefined) {
    const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const entries = Object.entries(escapes);
    p = {
      unescape: new RegExp(entries.map(([seq]) => quote(seq)).join("|"), "g"),
      escape: new RegExp(entries.map(([, ch]) => quote(ch)).join("|"), "g"),
      of: new Map(entries.map(([seq, ch]) => [ch, seq])),
    };
    patterns.set(escapes, p);
  }
  return p;
}

/**
 * A name as the format writes it.
 *
 * @example
 * escapeName('a&b"c', ATTRIBUTE_ESCAPES); // 'a&amp;b&quot;c'
 */
export function escapeName(name: string, escapes: NameEscapes): string {
  const p = patternsOf(escapes);
  return name.replace(p.escape, (ch) => p.of.get(ch) ?? ch);
}

/**
 * A name as the format wrote it, read back in one pass (`&amp;quot;` is `&quot;`, not `"`).
 *
 * @example
 * unescapeName("a&amp;b&quot;c", ATTRIBUTE_ESCAPES); // 'a&b"c'
 */
export function unescapeName(text: string, escapes: NameEscapes): string {
  return text.replace(patternsOf(escapes).unescape, (seq) => escapes[seq] ?? seq);
}
