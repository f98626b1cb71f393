/**
 * How `toolwright chat` writes an answer as it streams: reasoning dimmed, content as is, and each
 * tool call as `→ name(arguments)` with the arguments written as the model generates them.
 *
 * @example
 * const view = new AnswerView(process.stdout, (t) => t);
 * for await (const chunk of stream) view.delta(chunk.choices[0].delta);
 * view.end((await stream.result).message);
 */
import type { ChatDelta } from "../chat/types.js";
import type { AssistantMessage } from "../types.js";

export class AnswerView {
  #atLineStart = true;
  #inReasoning = false;
  /** The call whose arguments are being written, if any. */
  #openCall: number | undefined;
  readonly #shownCalls = new Set<number>();

  constructor(
    readonly out: { write(text: string): unknown },
    readonly dim: (text: string) => string,
  ) {}

  #write(text: string): void {
    if (text === "") return;
    this.out.write(text);
    this.#atLineStart = text.endsWith("\n");
  }

  #newline(): void {
    if (!this.#atLineStart) this.#write("\n");
  }

  #closeCall(): void {
    if (this.#openCall === undefined) return;
    this.#write(")\n");
    this.#openCall = undefined;
  }

  /** Writes one streamed delta. */
  delta(delta: ChatDelta): void {
    if (delta.reasoning_content) {
      this.#closeCall();
      this.#inReasoning = true;
      this.#write(this.dim(delta.reasoning_content));
      // The dimming codes come after the text: where the line stands is the text's.
      this.#atLineStart = delta.reasoning_content.endsWith("\n");
    }
    if (delta.content) {
      this.#closeCall();
      // Separate the answer from the reasoning shown before it.
      if (this.#inReasoning) this.#newline();
      this.#inReasoning = false;
      this.#write(delta.content);
    }
    for (const call of delta.tool_calls ?? []) {
      if (call.index !== this.#openCall) {
        this.#closeCall();
        this.#newline();
        this.#inReasoning = false;
        this.#write(`→ ${call.function.name ?? ""}(`);
        this.#openCall = call.index;
        this.#shownCalls.add(call.index);
      }
      this.#write(call.function.arguments ?? "");
    }
  }

  /** Ends the answer: closes an open call, and shows any call of `message` the stream did not. */
  end(message: AssistantMessage): void {
    this.#closeCall();
    this.#newline();
    (message.tool_calls ?? []).forEach((call, i) => {
      if (!this.#shownCalls.has(i)) this.#write(`→ ${call.function.name}(${call.function.arguments})\n`);
    });
  }
}
