/**
 * Parses a Python literal (the `repr` of a dict, as templates print `arguments` without
 * `tojson`) into a JS value: single- or double-quoted strings, True/False/None, numbers,
 * lists and dicts. Returns undefined when the text is not such a literal.
 *
 * @example
 * parsePythonLiteral("{'city': 'Paris', 'days': 3, 'metric': True}"); // { city: "Paris", days: 3, metric: true }
 */

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };

/** Rewrites the literal as JSON text, or returns undefined on anything unexpected. */
function toJsonText(text: string): string | undefined {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      let value = "";
      i++;
      while (i < text.length && text[i] !== ch) {
        if (text[i] === "\\") {
          const next = text[i + 1];
          if (next === undefined) return undefined;
          value += ESCAPES[next] ?? `\\${next}`;
          i += 2;
        } else {
          value += text[i];
          i++;
        }
      }
      if (i >= text.length) return undefined;
      out += JSON.stringify(value);
      i++;
      continue;
    }
    const word = /^(True|False|None)\b/.exec(text.slice(i, i + 5));
    if (word) {
      out += word[1] === "True" ? "true" : word[1] === "False" ? "false" : "null";
      i += word[1]!.length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

export function parsePythonLiteral(text: string): unknown {
  const json = toJsonText(text);
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
