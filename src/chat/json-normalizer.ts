/**
 * Incremental JSON normalisation for tool arguments. Models write arguments as JSON, as Python
 * literals (`{'city': 'Paris', 'ok': True}`) or as something in between, and stream them a few
 * characters at a time. {@link JsonNormalizer} reads that text piece by piece and writes compact
 * standard JSON, emitting only what can no longer change: structural characters at once, string
 * contents as they arrive, numbers and literals once they end, a comma only when the next member
 * starts. Whatever was emitted can therefore always be completed into valid JSON ({@link
 * JsonNormalizer.close}), which is what keeps streamed argument fragments, truncated output and
 * broken output all yielding parseable `arguments`.
 */

type Container = "object" | "array";

/** What the reader expects next outside of a token. */
const enum Expect {
  /** A value (top level, after `:`, after `,` in an array). */
  Value,
  /** A value or `]` (just after `[`). */
  ValueOrClose,
  /** A key or `}` (just after `{`). */
  KeyOrClose,
  /** A key (after `,` in an object). */
  Key,
  /** `:` after a key. */
  Colon,
  /** `,` or the container's closing bracket. */
  CommaOrClose,
  /** Nothing but whitespace: the top-level value is complete. */
  Done,
}

const BARE = /[A-Za-z0-9_+\-.]/;
/**
 * What may follow a quoted string (after whitespace): a quote before anything else is the string's text. The
 * parser's Python-literal strings (build-helpers.ts, pythonValue) read quotes by the same characters.
 */
export const STRING_FOLLOWERS = ",:}])<";
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const HEX = /^[0-9a-fA-F]+$/;

/** Python/JS spellings of JSON literals. */
const LITERALS: Record<string, string> = {
  true: "true",
  false: "false",
  null: "null",
  True: "true",
  False: "false",
  None: "null",
  // Only a format that reads it gives it (Gemma 4's parser).
  none: "null",
};

function escapeChar(c: string): string {
  switch (c) {
    case '"':
      return '\\"';
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    case "\b":
      return "\\b";
    case "\f":
      return "\\f";
    default: {
      const code = c.charCodeAt(0);
      return code < 0x20 ? `\\u${code.toString(16).padStart(4, "0")}` : c;
    }
  }
}

/**
 * Escapes text for the inside of a JSON string (quotes, backslashes and control characters;
 * everything else, including lone surrogates split across chunks, is kept as is so that
 * escaping pieces separately equals escaping their concatenation).
 *
 * @example
 * escapeJsonStringContent('say "hi"\n'); // 'say \\"hi\\"\\n'
 */
export function escapeJsonStringContent(text: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c) {
      out += text.slice(from, i) + escapeChar(text[i]!);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Canonical JSON for a bare token (number or literal), or null when it is not one. */
function bareToJson(token: string): string | null {
  const literal = LITERALS[token];
  if (literal !== undefined) return literal;
  if (JSON_NUMBER.test(token)) return token;
  // Python/JS number spellings JSON lacks: "1.", ".5", "+3", "1_000".
  if (/^[+-]?(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?$/.test(token)) {
    const n = Number(token.replace(/_/g, ""));
    if (Number.isFinite(n)) return JSON.stringify(n);
  }
  return null;
}

/**
 * A non-JSON value syntax the normalizer also reads: strings between a multi-character
 * delimiter with no escapes inside (Gemma 4 writes `<|"|>Paris<|"|>`), and object keys written
 * bare (`{city:<|"|>Paris<|"|>}`). A value that starts with a letter and is no literal is such a
 * string whose opening delimiter was left out: it runs to the delimiter (`{q:weather in Tokyo<|"|>}`).
 *
 * @example
 * import type { ValueDialect } from "toolwright/chat";
 * // Gemma 4's arguments: {city:<|"|>Paris<|"|>} reads as {"city":"Paris"}
 * const gemma4: ValueDialect = { stringDelimiter: '<|"|>', bareKeys: true };
 */
export interface ValueDialect {
  /** Opens and closes a string; its content is raw text. */
  stringDelimiter: string;
  /** Object keys may be written without quotes (they end at the `:`). */
  bareKeys: boolean;
}

/**
 * Turns a stream of JSON / Python-literal text into compact JSON, one piece at a time.
 *
 * @example
 * const n = new JsonNormalizer();
 * n.push("{'city': 'Par"); // '{"city":"Par'
 * n.push("is', 'n': 3");   // 'is"'   (the comma waits for the next member, 3 for its end)
 * n.close();               // ',"n":3}'
 */
export class JsonNormalizer {
  private readonly stack: Container[] = [];
  private expect: Expect = Expect.Value;
  private pendingComma = false;
  /** Inside a string: its quote character, else "". */
  private quote = "";
  private stringIsKey = false;
  /** Escape sequence being read inside a string ("\\", "\\u12", ...), else "". */
  private escape = "";
  /** Bare token being read (number or literal), else "". */
  private bare = "";
  private broken = false;
  private started = false;
  /** A bare object key being read (its opening quote was emitted). */
  private bareKey = false;
  /** Whitespace read in a bare key, held until a character after it says it is inside the key, not before `:`. */
  private bareKeySpace = "";
  /** End of the previous piece that may be the start of the dialect's string delimiter. */
  private held = "";
  /**
   * A quote that may close the string, and whitespace after it: held until a character after them says whether
   * they close it (one that may follow a string: `,` `:` `}` `]` `)` `<`) or are its text (`"He said "hi" to me"`).
   */
  private maybeClosed = "";

  constructor(private readonly dialect: ValueDialect | null = null) {}

  /** True once the text could not be read as JSON or Python literals; later input is ignored. */
  get failed(): boolean {
    return this.broken;
  }

  /** True when a complete top-level value has been read. */
  get complete(): boolean {
    return this.expect === Expect.Done && this.bare === "" && this.quote === "";
  }

  /**
   * True when what was read is one whole value but for a top-level number or literal that only the
   * end of the input ends (`42`): no container or string is left open.
   */
  get closedButForToken(): boolean {
    return this.complete || (this.stack.length === 0 && this.quote === "" && this.bare !== "");
  }

  /** True when any non-whitespace input has been read. */
  get hasValue(): boolean {
    return this.started;
  }

  /** Reads more text; returns the JSON that is now certain. */
  push(text: string): string {
    let out = "";
    const delim = this.dialect?.stringDelimiter ?? "";
    text = this.held + text;
    this.held = "";
    for (let i = 0; i < text.length && !this.broken; i++) {
      const c = text[i]!;
      if (
        delim !== "" &&
        c === delim[0] &&
        (this.quote === delim || (this.quote === "" && this.bare === "" && !this.bareKey && this.expectsValue()))
      ) {
        if (text.startsWith(delim, i)) {
          out += this.delimitedString();
          i += delim.length - 1;
          continue;
        }
        // Maybe the delimiter is split across pieces: wait for the rest.
        if (delim.startsWith(text.slice(i))) {
          this.held = text.slice(i);
          break;
        }
      }
      if (this.bareKey) {
        if (c === ":") {
          this.bareKey = false;
          this.bareKeySpace = "";
          this.expect = Expect.Value;
          out += '":';
        } else if (/\s/.test(c)) this.bareKeySpace += c;
        else {
          out += [...this.bareKeySpace].map(escapeChar).join("") + escapeChar(c);
          this.bareKeySpace = "";
        }
        continue;
      }
      if (this.quote === delim && delim !== "") {
        out += escapeChar(c);
        continue;
      }
      if (this.maybeClosed !== "") {
        if (/\s/.test(c)) {
          this.maybeClosed += c;
          continue;
        }
        const closes = STRING_FOLLOWERS.includes(c);
        out += closes ? this.closeString() : [...this.maybeClosed].map(escapeChar).join("");
        this.maybeClosed = "";
        if (!closes) {
          out += this.stringChar(c);
          continue;
        }
      }
      if (this.quote !== "") {
        out += this.stringChar(c);
        continue;
      }
      if (this.bare !== "") {
        if (BARE.test(c)) {
          this.bare += c;
          continue;
        }
        out += this.endBare();
        if (this.broken) break;
        if (this.quote !== "") {
          i--; // the bare text opened a string without its delimiter: `c` is read inside it
          continue;
        }
      }
      out += this.structural(c);
    }
    return out;
  }

  /**
   * Ends the input: returns what completes the JSON emitted so far (a pending number or
   * literal, a closing quote, `null` for a missing value, closing brackets). After a failure,
   * the JSON emitted before it is completed the same way.
   */
  close(): string {
    let out = "";
    if (this.held !== "" && this.quote !== "") out += escapeJsonStringContent(this.held);
    this.held = "";
    if (this.maybeClosed !== "") out += this.closeString();
    this.maybeClosed = "";
    if (this.bareKey) {
      this.bareKey = false;
      this.bareKeySpace = "";
      out += '"';
      this.expect = Expect.Colon;
    }
    if (!this.broken && this.bare !== "") {
      const json = bareToJson(this.bare);
      this.bare = "";
      if (json !== null) {
        out += this.valueStart() + json;
        this.afterValue();
      }
    }
    this.bare = "";
    if (this.quote !== "") {
      out += '"';
      this.quote = "";
      this.escape = "";
      if (this.stringIsKey) this.expect = Expect.Colon;
      else this.afterValue();
    }
    if (this.expect === Expect.Colon) out += ":null";
    // A value is missing after ":" (a pending comma was never written, so nothing is needed).
    else if (this.expect === Expect.Value && !this.pendingComma && this.stack.length > 0) out += "null";
    while (this.stack.length > 0) out += this.stack.pop() === "object" ? "}" : "]";
    this.expect = Expect.Done;
    this.pendingComma = false;
    return out;
  }

  /** The reader is where a string may start (a key counts where keys may be quoted). */
  private expectsValue(): boolean {
    return (
      this.expect === Expect.Value ||
      this.expect === Expect.ValueOrClose ||
      this.expect === Expect.Key ||
      this.expect === Expect.KeyOrClose
    );
  }

  /** The dialect's string delimiter: opens a string where one may start, else closes it. */
  private delimitedString(): string {
    if (this.quote !== "") {
      this.quote = "";
      if (this.stringIsKey) this.expect = Expect.Colon;
      else this.afterValue();
      return '"';
    }
    this.quote = this.dialect!.stringDelimiter;
    this.stringIsKey = this.expect === Expect.Key || this.expect === Expect.KeyOrClose;
    return this.valueStart() + '"';
  }

  private fail(): string {
    this.broken = true;
    return "";
  }

  /** The pending comma, written when the next member really starts. */
  private valueStart(): string {
    this.started = true;
    if (!this.pendingComma) return "";
    this.pendingComma = false;
    return ",";
  }

  private afterValue(): void {
    this.expect = this.stack.length === 0 ? Expect.Done : Expect.CommaOrClose;
  }

  private endBare(): string {
    const json = bareToJson(this.bare);
    const text = this.bare;
    this.bare = "";
    const delim = this.dialect?.stringDelimiter ?? "";
    if (json === null && delim !== "" && /^[A-Za-z]/.test(text)) {
      // A dialect string whose opening delimiter was left out (`weather in Tokyo<|"|>`): it runs to the delimiter.
      this.quote = delim;
      this.stringIsKey = false;
      return this.valueStart() + '"' + [...text].map(escapeChar).join("");
    }
    if (json === null) return this.fail();
    const out = this.valueStart() + json;
    this.afterValue();
    return out;
  }

  private structural(c: string): string {
    if (c === " " || c === "\n" || c === "\r" || c === "\t") return "";
    switch (this.expect) {
      case Expect.Done:
        return this.fail();
      case Expect.Colon:
        if (c !== ":") return this.fail();
        this.expect = Expect.Value;
        return ":";
      case Expect.CommaOrClose:
        if (c === ",") {
          this.pendingComma = true;
          this.expect = this.stack[this.stack.length - 1] === "object" ? Expect.Key : Expect.Value;
          return "";
        }
        return this.closeContainer(c);
      case Expect.KeyOrClose:
        if (c === "}") return this.closeContainer(c);
        return this.key(c);
      case Expect.Key:
        // A trailing comma before "}" is tolerated (it was never emitted).
        if (c === "}") {
          this.pendingComma = false;
          return this.closeContainer(c);
        }
        return this.key(c);
      case Expect.ValueOrClose:
        if (c === "]") return this.closeContainer(c);
        return this.value(c);
      case Expect.Value:
        if (c === "]" && this.pendingComma && this.stack[this.stack.length - 1] === "array") {
          this.pendingComma = false;
          return this.closeContainer(c);
        }
        return this.value(c);
    }
  }

  private closeContainer(c: string): string {
    const top = this.stack[this.stack.length - 1];
    if ((c === "}" && top !== "object") || (c === "]" && top !== "array")) return this.fail();
    this.stack.pop();
    this.afterValue();
    return c;
  }

  private key(c: string): string {
    if (this.dialect?.bareKeys && c !== '"' && c !== "'" && c !== ":" && c !== "}" && c !== ",") {
      this.bareKey = true;
      return this.valueStart() + '"' + escapeChar(c);
    }
    if (c !== '"' && c !== "'") return this.fail();
    this.quote = c;
    this.stringIsKey = true;
    return this.valueStart() + '"';
  }

  private value(c: string): string {
    if (c === "{" || c === "[") {
      const out = this.valueStart() + c;
      this.stack.push(c === "{" ? "object" : "array");
      this.expect = c === "{" ? Expect.KeyOrClose : Expect.ValueOrClose;
      return out;
    }
    if (c === '"' || c === "'") {
      this.quote = c;
      this.stringIsKey = false;
      return this.valueStart() + '"';
    }
    if (BARE.test(c)) {
      this.bare = c;
      return "";
    }
    return this.fail();
  }

  private stringChar(c: string): string {
    if (this.escape !== "") return this.escapeChar(c);
    if (c === this.quote) {
      this.maybeClosed = c;
      return "";
    }
    if (c === "\\") {
      this.escape = "\\";
      return "";
    }
    return escapeChar(c);
  }

  /** The quote read last closes the string. */
  private closeString(): string {
    this.quote = "";
    if (this.stringIsKey) this.expect = Expect.Colon;
    else this.afterValue();
    return '"';
  }

  /** Escape sequences: JSON's are kept, Python's (\\' \\xNN) are translated. */
  private escapeChar(c: string): string {
    const seq = this.escape + c;
    if (seq.length === 2) {
      switch (c) {
        case "u":
        case "x":
          this.escape = seq;
          return "";
        case '"':
        case "\\":
        case "/":
        case "b":
        case "f":
        case "n":
        case "r":
        case "t":
          this.escape = "";
          return seq;
        case "'":
          this.escape = "";
          return "'";
        default:
          // Unknown escape: keep both characters literally.
          this.escape = "";
          return "\\\\" + escapeChar(c);
      }
    }
    const want = seq[1] === "u" ? 6 : 4;
    if (!HEX.test(c)) {
      this.escape = "";
      // Not a valid escape after all: keep its characters literally.
      return "\\\\" + escapeJsonStringContent(seq.slice(1));
    }
    if (seq.length < want) {
      this.escape = seq;
      return "";
    }
    this.escape = "";
    return seq[1] === "u" ? seq : `\\u00${seq.slice(2).toLowerCase()}`;
  }
}
