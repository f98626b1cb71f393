/**
 * The text a template body renders, collected in pieces. A loop that prints a short value a
 * million times leaves a million small strings: kept in one array they take ~60 bytes each (1.2 GB
 * seen for three nested loops printing `{{ k }}`). Joining every `GROUP` pieces into one string
 * keeps the cost near one byte per character, and each character is joined at most twice.
 *
 * @example
 * const out = new RenderOutput();
 * out.push("Hello, ");
 * out.push("world");
 * out.text(); // "Hello, world"
 */
const GROUP = 1024;

export class RenderOutput {
  readonly #joined: string[] = [];
  #pieces: string[] = [];

  /** Appends `text`. */
  push(text: string): void {
    this.#pieces.push(text);
    if (this.#pieces.length >= GROUP) {
      this.#joined.push(this.#pieces.join(""));
      this.#pieces = [];
    }
  }

  /** Everything pushed so far, as one string. */
  text(): string {
    return this.#joined.join("") + this.#pieces.join("");
  }
}
