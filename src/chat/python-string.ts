/**
 * The inside of a quoted Python string, streamed: escapes (`\n`, `\t`, `\'`, `\"`, `\\`,
 * `\uXXXX`, `\xNN`) are decoded and quotes that are not escaped are kept as text (templates such
 * as LFM2.5's print strings between quotes without escaping them). The decoding is the JSON
 * normalizer's (one place reads Python escapes); this only opens its string and escapes the bare
 * double quotes it would otherwise take for the string's end.
 *
 * @example
 * const s = new PythonStringContent();
 * s.open() + s.push("it's \\"x\\"\\n") + s.push('say "hi"') + s.normalizer.close();
 * // '"it\'s \\"x\\"\\nsay \\"hi\\""'
 */
import { JsonNormalizer } from "./json-normalizer.js";

export class PythonStringContent {
  /** Reads the escaped text; its `close()` ends the string. */
  readonly normalizer = new JsonNormalizer();
  /** The previous piece ended inside an escape (after an odd run of backslashes). */
  private escaped = false;

  /** Opens the JSON string: returns its opening quote. */
  open(): string {
    return this.normalizer.push('"');
  }

  /** Reads more of the string's inside; returns the JSON string content that is now certain. */
  push(text: string): string {
    let out = "";
    for (const c of text) {
      if (this.escaped) this.escaped = false;
      else if (c === "\\") this.escaped = true;
      else if (c === '"') {
        out += '\\"';
        continue;
      }
      out += c;
    }
    return this.normalizer.push(out);
  }
}
