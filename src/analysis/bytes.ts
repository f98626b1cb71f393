/**
 * Byte strings: the analysis works on UTF-8 bytes held one byte per UTF-16 unit
 * ("latin1" strings), so that every common-prefix / common-suffix cut lands exactly where
 * llama.cpp's byte-oriented analyser lands, even between two multi-byte characters that
 * share leading bytes. Markers are converted back to ordinary strings at the end.
 *
 * @example
 * fromBytes(toBytes("<｜tool▁sep｜>")) === "<｜tool▁sep｜>"; // true
 */

/** Encodes a JS string as a byte string (one UTF-8 byte per char code 0..255). */
export function toBytes(text: string): string {
  // Pure ASCII (the common case for needles) needs no conversion.
  if (!/[^\x00-\x7f]/.test(text)) return text;
  return Buffer.from(text, "utf8").toString("latin1");
}

/** Decodes a byte string back to a JS string; invalid UTF-8 becomes U+FFFD. */
export function fromBytes(bytes: string): string {
  if (!/[^\x00-\x7f]/.test(bytes)) return bytes;
  return Buffer.from(bytes, "latin1").toString("utf8");
}

/** C-locale `isspace`: space, \t, \n, \v, \f, \r (never a byte >= 0x80). */
export function isSpaceByte(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

/** Removes C-locale whitespace at both ends. */
export function trimWhitespace(text: string): string {
  return trimTrailingWhitespace(trimLeadingWhitespace(text));
}

/** Removes C-locale whitespace at the start. */
export function trimLeadingWhitespace(text: string): string {
  let start = 0;
  while (start < text.length && isSpaceByte(text.charCodeAt(start))) start++;
  return start === 0 ? text : text.slice(start);
}

/** Removes C-locale whitespace at the end. */
export function trimTrailingWhitespace(text: string): string {
  let end = text.length;
  while (end > 0 && isSpaceByte(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** Length in bytes of the UTF-8 sequence starting at `pos`, or 0 when it is not a valid start. */
export function utf8SequenceLength(bytes: string, pos: number): number {
  const lead = bytes.charCodeAt(pos);
  let length: number;
  if (lead < 0x80) return 1;
  else if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) length = 3;
  else if (lead >= 0xf0 && lead <= 0xf4) length = 4;
  else return 0;
  if (pos + length > bytes.length) return 0;
  for (let i = 1; i < length; i++) {
    if ((bytes.charCodeAt(pos + i) & 0xc0) !== 0x80) return 0;
  }
  return length;
}
