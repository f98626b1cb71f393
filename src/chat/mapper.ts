/**
 * The mapper: parse trees → OpenAI assistant message, incrementally. It is fed the tree
 * snapshots of a growing parse and walks each only from where the previous one left off
 * (a cursor per tree depth), so streaming costs stay linear in the output. Every piece of
 * output is emitted once, as a delta; the message is the sum of the deltas (message-output.ts).
 *
 * Tool calls: arguments are normalised to compact JSON as they are read (argument-writer.ts). A
 * call is emitted, as one delta, only once the model has finished writing it (call-ledger.ts):
 * its arguments are then checked (an object, no argument twice) and repaired where the schema
 * says how (call-finish.ts). A call the model did not finish, or that is malformed, is never a
 * call: its text is content. While the output streams, `message()` also shows the call being
 * written (llama.cpp's partial messages).
 */
import type { PegNodeList, PegTextSource, PegTreeNode } from "../peg/index.js";
import type { AssistantMessage } from "../types.js";
import { ArgumentWriter } from "./argument-writer.js";
import { CallLedger } from "./call-ledger.js";
import { MessageOutput } from "./message-output.js";
import { ReasoningInContent } from "./reasoning-in-content.js";
import { NODE } from "./tree-names.js";
import type { ChatDelta, ChatMappingOptions } from "./types.js";

/** Cursor over one depth of the tree. */
interface Level {
  /** Children fully mapped. */
  done: number;
  /** The partially mapped child at index `done` (start offset, name), or start -1. */
  openStart: number;
  openName: string;
  /** Input offset up to which the open capture's text was mapped. */
  processedEnd: number;
  /** The open child produced output (it must not disappear from later snapshots). */
  emitted: boolean;
  /** The output's version when the open child opened (see takenBackWhole). */
  openVersion: number;
  /** Span of the last child fully mapped (-1 before any): a later snapshot must still hold it. */
  lastStart: number;
  lastEnd: number;
}

const CONSISTENT = true;

/** A reasoning block read inline starts to show once its reasoning has text or the block is closed. */
function inlineBlockStarted(block: PegTreeNode, input: PegTextSource): boolean {
  const nodes = block.childList;
  for (let i = 0; i < nodes.length; i++) {
    const r = nodes.at(i)!;
    if (r.name !== NODE.reasoning) continue;
    return r.end < block.end || input.slice(r.start, r.end).trim() !== "";
  }
  return false;
}

/**
 * Incremental tree → message mapper.
 *
 * @example
 * const m = new MessageMapper({ idAfterName: false, ignoreModelIds: false }, () => "call_1");
 * m.apply(result.nodeList, result.source);
 * m.finish();
 * m.message(); // { role: "assistant", content: "...", tool_calls: [...] }
 */
export class MessageMapper {
  private readonly levels: Level[] = [];
  private readonly output: MessageOutput;
  private readonly args: ArgumentWriter;
  private readonly ledger: CallLedger;
  /** Offset of the current parse segment in the input (a parse restarted after unparsable text). */
  private base = 0;
  private cutAt = 0;
  /**
   * End of the unfinished structure that produced output in the last snapshot (-1 when none): it
   * extends the cut only when reading stops, as a later snapshot may end the structure sooner.
   */
  private openEnd = -1;
  private finished = false;
  /** The text of the last tree mapped (the current segment's). */
  private input: PegTextSource | null = null;

  /**
   * @param prefixLength Text before this offset came from the prompt (a parser prefix): it is
   *   never part of the message, even where a capture covers it.
   */
  constructor(
    private readonly mapping: ChatMappingOptions,
    newId: (index: number) => string,
    private readonly prefixLength = 0,
  ) {
    const split = mapping.reasoningInContent;
    this.output = new MessageOutput(split ? new ReasoningInContent(split.start, split.end, split.resume) : null);
    this.args = new ArgumentWriter(mapping);
    this.ledger = new CallLedger(mapping, newId, prefixLength, this.args, this.output);
  }

  /** Input offset after the last text the mapper used (where unparsed trailing text starts). */
  get cut(): number {
    return this.cutAt;
  }

  /**
   * Maps a new snapshot. Returns false (and maps nothing) when the snapshot takes back
   * something an earlier one produced: the parse went another way after output was emitted.
   */
  apply(nodes: PegNodeList, input: PegTextSource): boolean {
    if (this.finished) throw new RangeError("MessageMapper.apply: the message is already finished");
    if (this.verify(nodes, 0) !== CONSISTENT) return false;
    this.input = input;
    this.openEnd = -1;
    this.walk(nodes, 0, input);
    this.ledger.flushStreamed();
    return true;
  }

  /** Calls whose text starts at `offset` (absolute) or later stream from their name on (CallLedger.streamCallsFrom). */
  streamCallsFrom(offset: number): void {
    this.ledger.streamCallsFrom(offset);
  }

  /** A streamed call was cut: the output ended inside it. */
  get cutCall(): boolean {
    return this.ledger.cutCall;
  }

  /** Reads the input between two offsets (see MessageOutput.readTextWith). */
  readTextWith(textOf: (from: number, to: number) => string): void {
    this.output.readTextWith(textOf);
  }

  /** Appends raw text to the content (output the parser could not place). */
  appendContent(text: string, start: number): void {
    this.ledger.appendContent(text, start);
  }

  /**
   * Structured reading stops (the parse failed, or the output ended): the call still open was not
   * finished, so it is dropped and {@link cut} moves back to where its text starts (its section's
   * opener when no call of the section was emitted): that text is content.
   */
  closeStructures(): boolean {
    this.args.forgetValue();
    if (this.openEnd > this.cutAt) this.cutAt = this.openEnd;
    this.openEnd = -1;
    const { textFrom, owedFrom, tailFrom } = this.ledger.stopReading();
    // Markers read after a call that is not one are its text: the content goes on from there.
    if (owedFrom >= 0 && owedFrom < this.cutAt) this.cutAt = owedFrom;
    // An open section's text after its last call (past the space that separates calls) was no
    // call's, nor any text's: it is content, and where the request reads more calls, reading goes on
    // past it as after a broken call (`<tool_call>…</tool_call><tool_call>broken</tool_call><tool_call>…`).
    let tail = false;
    if (tailFrom >= this.base) {
      const after = this.pastSpace(Math.max(tailFrom, this.output.textEnd));
      if (after < this.cutAt) {
        this.cutAt = after;
        tail = this.mapping.readsOneCall !== true;
      }
    }
    if (textFrom < 0) return tail;
    this.cutAt = textFrom;
    return true;
  }

  /** The first offset from `from` (absolute) on, up to the cut, that is not whitespace in the last tree's input. */
  private pastSpace(from: number): number {
    const text = this.input === null ? "" : this.input.slice(from - this.base, this.cutAt - this.base);
    return from + (text.length - text.trimStart().length);
  }

  /**
   * Starts mapping the trees of a new parse that reads the input from `base` on (the mapping so
   * far stays: calls, content, reasoning).
   */
  startSegment(base: number): void {
    this.ledger.startSegment(base);
    this.levels.length = 0;
    this.input = null;
    this.openEnd = -1;
    this.base = base;
    if (base > this.cutAt) this.cutAt = base;
  }

  /** Closes whatever is still open (calls, values, text fields). Idempotent. */
  finish(): void {
    if (this.finished) return;
    this.closeStructures();
    this.output.finish();
    this.finished = true;
  }

  /** Deltas produced since the last call. */
  drain(): ChatDelta[] {
    return this.output.drain();
  }

  /** The message as mapped so far. */
  message(): AssistantMessage {
    return this.output.message(this.ledger.toolCalls(this.finished));
  }

  // ---- cursor walk --------------------------------------------------------------------

  private verify(nodes: PegNodeList, depth: number): boolean {
    const level = this.levels[depth];
    if (level && !this.keepsLastDone(nodes, level)) return !CONSISTENT;
    if (!level || level.openStart < 0) return nodes.length >= (level?.done ?? 0) || !this.anyOutput();
    const n = nodes.at(level.done);
    if (!n || n.start !== level.openStart || n.name !== level.openName)
      return !level.emitted || this.takenBackWhole(level);
    if (n.kind === "capture") return n.end >= level.processedEnd;
    if (this.verify(n.childList, depth + 1) === CONSISTENT) return CONSISTENT;
    if (!this.takenBackWhole(level)) return !CONSISTENT;
    // The call reads its text another way now (its arguments end where a value seemed to start):
    // it is read again from its start, as if this snapshot were the first to show it.
    this.discardOpen(level);
    this.levels.length = depth + 1;
    return CONSISTENT;
  }

  /**
   * The last child mapped whole is still there, unchanged (a parse may take back a finished value
   * for another reading of it, as a CDATA value that turns out not to be one).
   */
  private keepsLastDone(nodes: PegNodeList, level: Level): boolean {
    if (level.done === 0 || level.lastStart < 0) return true;
    const n = nodes.at(level.done - 1);
    return n !== undefined && n.start === level.lastStart && n.end === level.lastEnd;
  }

  /**
   * An open call or section that produced no output since it opened (its name and arguments read,
   * nothing emitted) may go whole: the call's state goes with it (discardOpen), so a later parse
   * that reads its text another way (content, another call) maps as if it had never been read.
   */
  private takenBackWhole(level: Level): boolean {
    const whole = level.openName === NODE.tool || level.openName === NODE.toolSection;
    return whole && this.output.version === level.openVersion;
  }

  private anyOutput(): boolean {
    return this.output.hasText || this.ledger.hasCalls;
  }

  /** Maps `nodes` from the cursor on; returns whether anything in them produced output. */
  private walk(nodes: PegNodeList, depth: number, input: PegTextSource): boolean {
    let level = this.levels[depth];
    if (!level) {
      level = {
        done: 0,
        openStart: -1,
        openName: "",
        processedEnd: 0,
        emitted: false,
        openVersion: 0,
        lastStart: -1,
        lastEnd: -1,
      };
      this.levels[depth] = level;
    }
    let produced = false;
    for (let i = level.done; i < nodes.length; i++) {
      const n = nodes.at(i)!;
      const continuing = i === level.done && level.openStart === n.start && level.openName === n.name;
      if (!continuing) {
        // A partially mapped child that produced nothing may be replaced by another branch.
        if (i === level.done && level.openStart >= 0) this.discardOpen(level);
        this.levels.length = depth + 1;
        level.openStart = n.start;
        level.openName = n.name;
        level.processedEnd = n.start;
        level.emitted = false;
        this.enter(n);
        // After enter: a call waiting for its closer, settled as this one starts, is not this one's output.
        level.openVersion = this.output.version;
      }
      // Inline reasoning: the whole block, markers included, is content text, from the moment its
      // opener is complete (a partial opener may still turn out to be something else) and it holds
      // reasoning or is closed (an opener the prompt wrote, left empty, is no content).
      const inline =
        n.kind === "tag" &&
        n.name === NODE.reasoningBlock &&
        this.mapping.reasoningInline === true &&
        (continuing && level.processedEnd > n.start ? true : inlineBlockStarted(n, input));
      if (n.kind === "capture" || inline) {
        if (n.end > level.processedEnd) {
          this.captureText(
            inline ? NODE.content : n.name,
            input.slice(level.processedEnd, n.end),
            level.processedEnd + this.base,
            inline,
          );
          level.processedEnd = n.end;
          level.emitted = true;
          if (n.end + this.base > this.cutAt) this.cutAt = n.end + this.base;
        }
      } else {
        if (this.walk(n.childList, depth + 1, input)) level.emitted = true;
        // A structure that produced output was recognised up to its end (even if unfinished: then
        // up to where this snapshot ends it).
        if (level.emitted && n.incomplete) this.openEnd = Math.max(this.openEnd, n.end + this.base);
        else if (level.emitted && n.end + this.base > this.cutAt) this.cutAt = n.end + this.base;
      }
      if (level.emitted) produced = true;
      if (n.incomplete) return produced;
      this.exit(n, input);
      if (n.kind === "tag" && n.end + this.base > this.cutAt) this.cutAt = n.end + this.base;
      level.done = i + 1;
      level.lastStart = n.start;
      level.lastEnd = n.end;
      level.openStart = -1;
      level.emitted = false;
      this.levels.length = depth + 1;
    }
    // The child left open last time is gone from this snapshot (taken back before it produced output).
    if (level.openStart >= 0 && level.done >= nodes.length) this.discardOpen(level);
    return produced;
  }

  /** Forgets an open node that produced nothing and is gone from the new snapshot. */
  private discardOpen(level: Level): void {
    if (level.openName === NODE.tool || level.openName === NODE.toolSection) {
      this.ledger.takeBackCall();
      this.args.forgetValue();
      this.cutAt = Math.min(this.cutAt, level.openStart + this.base);
    }
    if (level.openName === NODE.toolSection) this.ledger.takeBackSection();
    if (level.openName === NODE.toolArg) this.args.forgetValue();
    const call = this.ledger.current;
    if ((level.openName === NODE.argObject || level.openName === NODE.argArray) && call) this.args.forgetNested(call);
    level.openStart = -1;
  }

  // ---- nodes → calls, arguments, text -------------------------------------------------

  private enter(n: PegTreeNode): void {
    if (n.kind !== "tag") return;
    if (n.name === NODE.toolSection) this.ledger.openSection(n.start + this.base);
    else if (n.name === NODE.tool) this.ledger.startCall(n.start + this.base);
    else if (n.name === NODE.unmarkedCalls) this.ledger.unmarked = true;
    else this.args.enter(n.name, this.ledger.current);
  }

  private captureText(name: string, text: string, start: number, inline = false): void {
    if (start < this.prefixLength) {
      const skip = Math.min(text.length, this.prefixLength - start);
      text = text.slice(skip);
      start += skip;
      if (text === "") return;
    }
    if (name === NODE.content || name === NODE.reasoning) this.ledger.settlePending();
    if (name === NODE.content) this.output.captureContent(text, start, inline);
    else if (name === NODE.reasoning) this.output.captureReasoning(text, start);
    else {
      // Names and ids are read whole when they close; argument text as it comes.
      const call = this.ledger.current;
      if (call) this.args.capture(name, call, text);
    }
  }

  private exit(n: PegTreeNode, input: PegTextSource): void {
    switch (n.name) {
      case NODE.toolSection:
        this.ledger.closeSection(input, n.end);
        return;
      case NODE.unmarkedCalls:
        this.ledger.unmarked = false;
        return;
      case NODE.callEnd:
        // An empty match is a closer the parse let the model leave out: the call is not closed.
        if (n.end > n.start) this.ledger.readCallEnd(input, n.end);
        return;
      case NODE.tool:
        this.ledger.closeCall(input, n.end);
        return;
      // Names and ids are read whole: slicing every closing node would re-read each call's text.
      case NODE.toolName:
        this.ledger.nameCall(input.slice(n.start, n.end));
        return;
      case NODE.toolId:
        this.ledger.readModelId(input.slice(n.start, n.end));
        return;
      default:
        this.args.exit(n, input, this.ledger.current);
    }
  }
}
