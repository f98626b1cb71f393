/**
 * Parsing model output into an OpenAI assistant message, whole or streamed.
 *
 * Streaming runs the PEG parser incrementally (each chunk re-examines only the unfinished tail)
 * and maps each partial tree with the incremental mapper, so total work is linear in the output.
 * What the partial parse of a prefix recognises is what gets emitted; the final message is the
 * partial parse of the whole output, upgraded to the complete parse when that agrees with it.
 * The result therefore depends only on the text, never on how it was chunked.
 *
 * Output that does not conform never throws and loses nothing: where the parse fails, what was
 * recognised up to the failure is kept; a call the model had not finished there is content, and
 * reading starts again one character past where that call's text began (a later call section
 * is still read). Where no call was open, the text from the failure on becomes content.
 */
import { PegStreamParser, parsePeg, type PegParseResult } from "../peg/index.js";
import type { AssistantMessage } from "../types.js";
import { StopStringFilter } from "../runtime/stop-strings.js";
import { randomCallId } from "./call-id.js";
import { opensCodeQuote } from "./fenced-calls.js";
import { MessageMapper } from "./mapper.js";
import { TrailingEndFilter } from "./trailing-end.js";
import { NODE } from "./tree-names.js";
import type { ChatDelta, ChatParams, ChatParseOptions, ChatParserSpec } from "./types.js";

function specOf(source: ChatParserSpec | ChatParams, where: string): ChatParserSpec {
  if (source === null || typeof source !== "object")
    throw new TypeError(
      `${where}: expected ChatParams or a parser spec, got ${source === null ? "null" : typeof source}`,
    );
  const spec = "parser" in source ? source.parser : source;
  if (!spec || typeof spec !== "object" || !("arena" in spec) || typeof spec.root !== "number") {
    throw new TypeError(`${where}: expected ChatParams or a parser spec (with arena and root)`);
  }
  return spec;
}

function checkOptions(options: ChatParseOptions, where: string): (index: number) => string {
  if (options === null || typeof options !== "object")
    throw new TypeError(`${where}: options must be an object, got ${options === null ? "null" : typeof options}`);
  const gen = options.generateCallId;
  if (gen !== undefined && typeof gen !== "function")
    throw new TypeError(`${where}: options.generateCallId must be a function, got ${typeof gen}`);
  return gen ?? randomCallId;
}

/**
 * The parser reads the whole output as content (a request without tools on a format without reasoning): its
 * root captures the rest of the input as content, after nothing but empty items.
 *
 * @example
 * readsAllAsContent(generateChatParams(analysis, template, { messages }).parser); // true for Qwen 2.5
 */
export function readsAllAsContent(spec: ChatParserSpec): boolean {
  const { arena } = spec;
  let node = arena.node(spec.root);
  if (node.type === "sequence") {
    const items = node.items;
    if (!items.slice(0, -1).every((i) => arena.node(i).type === "eps")) return false;
    node = arena.node(items[items.length - 1]!);
  }
  return node.type === "capture" && node.name === NODE.content && arena.node(node.item).type === "rest";
}

/**
 * Parses streamed model output: feed it chunks, get OpenAI-style deltas back. Concatenating the
 * deltas gives exactly {@link ChatStreamParser.message}.
 *
 * @example
 * const params = generateChatParams(analysis, template, { messages, tools });
 * const stream = new ChatStreamParser(params);
 * for await (const piece of tokens) for (const d of stream.feed(piece)) send(d);
 * for (const d of stream.finish()) send(d);
 * stream.message(); // { role: "assistant", content, reasoning_content?, tool_calls? }
 */
export class ChatStreamParser {
  private readonly spec: ChatParserSpec;
  /** The parse of the current segment: the input from `segmentStart` on. */
  private engine: PegStreamParser;
  private segmentStart = 0;
  /** The whole input: prefix and output. */
  private input = "";
  private readonly mapper: MessageMapper;
  private frozen = false;
  private done = false;
  private length = 0;
  /** Cuts the output at the turn's end marker (null when the format has none). */
  private readonly stop: StopStringFilter | null;
  private stopped = false;
  private fedLength = 0;
  /** Holds back a possible end-of-sequence text at the end of the output (null when none is known). */
  private readonly trailingEnd: TrailingEndFilter | null;

  constructor(params: ChatParams | ChatParserSpec, options: ChatParseOptions = {}) {
    this.spec = specOf(params, "ChatStreamParser");
    const newId = checkOptions(options, "ChatStreamParser");
    this.engine = new PegStreamParser(this.spec.arena, this.spec.root);
    const kept = this.spec.keptPrefix ?? 0;
    if (!Number.isInteger(kept) || kept < 0 || kept > this.spec.prefix.length)
      throw new RangeError(
        `ChatStreamParser: keptPrefix must be an integer from 0 to the prefix length ` +
          `(${this.spec.prefix.length}), got ${kept}`,
      );
    this.mapper = new MessageMapper(this.spec.mapping, newId, this.spec.prefix.length - kept);
    this.mapper.readTextWith((from, to) => this.input.slice(from, to));
    const stopAt = this.spec.stopAt ?? [];
    if (!Array.isArray(stopAt) || stopAt.some((x) => typeof x !== "string"))
      throw new TypeError("ChatStreamParser: stopAt must be an array of strings");
    this.stop = stopAt.some((x) => x !== "") ? new StopStringFilter(stopAt) : null;
    const endTexts = this.spec.endTexts ?? [];
    if (!Array.isArray(endTexts) || endTexts.some((x) => typeof x !== "string"))
      throw new TypeError("ChatStreamParser: endTexts must be an array of strings");
    this.trailingEnd = endTexts.some((x) => x.trim() !== "") ? new TrailingEndFilter(endTexts) : null;
    if (this.spec.prefix !== "") this.consume(this.spec.prefix);
    // Nothing to find in the output: each chunk is content as it comes, without a parse per chunk (the same
    // message and deltas, test/unit/chat-content-only.test.ts).
    if (readsAllAsContent(this.spec)) this.freeze();
  }

  /**
   * Calls whose text starts at output offset `offset` or later are held by a grammar from there on
   * (where a lazy grammar's trigger matched; offsets count every character fed): they are streamed from
   * their name on, as with the mapping's `streamCalls`.
   *
   * @example
   * const stream = new ChatStreamParser(params);
   * stream.streamCallsFrom(0); // every call of this output is held by the grammar
   */
  streamCallsFrom(offset: number): void {
    if (!Number.isInteger(offset) || offset < 0)
      throw new RangeError(`ChatStreamParser.streamCallsFrom(offset): offset must be an integer >= 0, got ${offset}`);
    this.mapper.streamCallsFrom(this.spec.prefix.length + offset);
  }

  /** A call streamed from its name on was cut: the output ended inside it (see `streamCalls`). */
  get cutCall(): boolean {
    return this.mapper.cutCall;
  }

  /** Characters passed to {@link feed} so far: the offsets of {@link streamCallsFrom}. */
  get fed(): number {
    return this.fedLength;
  }

  /** The model output received so far (without the prompt prefix). */
  get text(): string {
    return this.input.slice(this.spec.prefix.length);
  }

  /** Parsing work so far (see PegStreamParser.work): grows linearly with the output. */
  get work(): number {
    return this.engine.work;
  }

  /** Adds a chunk of output; returns the deltas it completes. */
  feed(chunk: string): ChatDelta[] {
    if (typeof chunk !== "string")
      throw new TypeError(`ChatStreamParser.feed(chunk): chunk must be a string, got ${typeof chunk}`);
    if (this.done) throw new RangeError("ChatStreamParser.feed(): the stream is already finished");
    this.fedLength += chunk.length;
    if (chunk !== "" && !this.stopped) this.consume(this.untilStop(chunk));
    return this.mapper.drain();
  }

  /** The part of `chunk` before the turn's end marker (a possible start of it is held back). */
  private untilStop(chunk: string): string {
    let text = chunk;
    if (this.stop !== null) {
      const r = this.stop.push(chunk);
      this.stopped = r.stopped;
      text = r.text;
    }
    return this.trailingEnd === null ? text : this.trailingEnd.push(text);
  }

  /** Ends the output; returns the last deltas (closing what is still open). */
  finish(): ChatDelta[] {
    if (this.done) return [];
    let held = this.stop !== null && !this.stopped ? this.stop.flush() : "";
    if (this.trailingEnd !== null) held = this.trailingEnd.push(held) + this.trailingEnd.finish();
    if (held !== "") this.consume(held);
    this.done = true;
    while (!this.frozen) {
      const result = this.engine.finish();
      if (result.status === "success" && this.mapper.apply(result.nodeList, result.source)) break;
      if (result.status === "success") {
        this.freeze();
        break;
      }
      // The output ended inside a structure (an unfinished call): its text is content, and the
      // rest is read again after it.
      if (!this.restart(result)) break;
      const rest = this.input.slice(this.segmentStart);
      if (rest !== "") this.parseMore(this.engine.feed(rest));
    }
    this.mapper.finish();
    return this.mapper.drain();
  }

  /** The message as parsed so far (complete after {@link finish}). */
  message(): AssistantMessage {
    return this.mapper.message();
  }

  private consume(chunk: string): void {
    if (chunk === "") return;
    const start = this.length;
    this.length += chunk.length;
    this.input += chunk;
    if (this.frozen) {
      this.mapper.appendContent(chunk, start);
      return;
    }
    this.parseMore(this.engine.feed(chunk));
  }

  /** Maps a segment's parse result; on a failure, recovers and reads on in a new segment. */
  private parseMore(result: PegParseResult): void {
    while (!this.frozen) {
      if (result.status !== "fail") {
        if (!this.mapper.apply(result.nodeList, result.source)) this.freeze();
        return;
      }
      const held = this.mapPartial(result);
      if (!this.restart(undefined, held)) return;
      const rest = this.input.slice(this.segmentStart);
      if (rest === "") return;
      result = this.engine.feed(rest);
    }
  }

  /**
   * Closes what the failed parse left open. Where that was a call (or a call section), its text
   * is content and a new segment starts one character past its start: a parse of the format's
   * body, which reads content up to the next call. So too where the parse failed inside text it held
   * back undecided (`held`, its input offset: calls quoted as code, fenced-calls.ts): that text was no
   * quote. Returns false when nothing was open: then the rest is content (frozen).
   */
  private restart(failed?: PegParseResult, held = -1): boolean {
    if (!this.mapper.closeStructures()) {
      if (failed !== undefined) this.mapRecognised(failed);
      if (held < 0 || held < this.mapper.cut) {
        this.freeze();
        return false;
      }
    }
    const from = Math.max(this.mapper.cut, this.spec.prefix.length);
    if (from >= this.input.length) return false;
    this.mapper.appendContent(this.input.slice(from, from + 1), from);
    this.segmentStart = from + 1;
    this.engine = new PegStreamParser(this.spec.arena, this.spec.resumeRoot ?? this.spec.root);
    this.mapper.startSegment(this.segmentStart);
    return true;
  }

  /**
   * The parse failed: map what the partial parse up to the failure recognised. (The partial
   * parse of that prefix is what a stream chunked there would have produced, so this does not
   * depend on the chunking.) Returns where text the parse held back undecided starts, or -1.
   */
  private mapPartial(failed: PegParseResult): number {
    const input = this.engine.text;
    const lowest = this.segmentStart === 0 ? this.spec.prefix.length : 0;
    const at = Math.min(Math.max(failed.failAt, lowest), input.length);
    const root = this.segmentStart === 0 ? this.spec.root : (this.spec.resumeRoot ?? this.spec.root);
    let partial = parsePeg(this.spec.arena, root, input.slice(0, at), { partial: true });
    if (partial.status === "fail") {
      // Find the longest prefix that still parses (a prefix of a parsable text parses too).
      let lo = lowest;
      let hi = at - 1;
      let best: PegParseResult | null = null;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const r = parsePeg(this.spec.arena, root, input.slice(0, mid), { partial: true });
        if (r.status === "fail") hi = mid - 1;
        else {
          best = r;
          lo = mid + 1;
        }
      }
      partial = best ?? partial;
    }
    if (partial.status === "fail") return -1;
    this.mapper.apply(partial.nodeList, partial.source);
    // A code quote the parse still held back undecided where it failed (its tree ends before the failure).
    const held = partial.status === "need-more" && partial.end < at ? partial.end : -1;
    return held >= 0 && opensCodeQuote(input.slice(held, at)) ? this.segmentStart + held : -1;
  }

  /**
   * The output ended and its last parse failed with nothing open to restart from (a parse that stayed
   * undecided until the end, as reasoning that may yet close does): what that parse recognised, read as a
   * finished text, keeps its structure (a finished call before an unfinished one); the rest is content.
   */
  private mapRecognised(failed: PegParseResult): void {
    const lowest = this.segmentStart === 0 ? this.spec.prefix.length : 0;
    if (failed.end <= lowest) return;
    const root = this.segmentStart === 0 ? this.spec.root : (this.spec.resumeRoot ?? this.spec.root);
    const read = parsePeg(this.spec.arena, root, this.engine.text.slice(0, failed.end));
    if (read.status === "success") this.mapper.apply(read.nodeList, read.source);
  }

  /** Stops structured parsing: open calls are closed, the unparsed rest becomes content. */
  private freeze(): void {
    this.frozen = true;
    this.mapper.closeStructures();
    const from = Math.max(this.mapper.cut, this.spec.prefix.length);
    if (from < this.input.length) this.mapper.appendContent(this.input.slice(from), from);
  }
}

/**
 * Parses a complete model output (same result as streaming it in any chunks).
 *
 * @example
 * parseChatOutput(params, '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
 * // { role: "assistant", content: null,
 * //   tool_calls: [{ id: "…", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] }
 */
export function parseChatOutput(
  params: ChatParams | ChatParserSpec,
  output: string,
  options: ChatParseOptions = {},
): AssistantMessage {
  if (typeof output !== "string")
    throw new TypeError(`parseChatOutput(output): output must be a string, got ${typeof output}`);
  const parser = new ChatStreamParser(params, options);
  parser.feed(output);
  parser.finish();
  return parser.message();
}
