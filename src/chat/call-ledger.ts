/**
 * The calls of the message being mapped (mapper.ts), and how each is settled once its text
 * ends: a call the model finished (its closing marker read, where the format has one) whose
 * arguments hold is emitted, as one delta; a call that was not finished, or is malformed, is
 * never a call: its text, and the markers that close it, are content.
 */
import { unescapeName } from "./name-escapes.js";
import type { PegTextSource } from "../peg/index.js";
import type { JsonSchema, ToolCall } from "../types.js";
import type { ArgumentWriter } from "./argument-writer.js";
import { finishCallArguments, toolNameFromArguments } from "./call-finish.js";
import { type CallState, newCallState } from "./call-state.js";
import type { MessageOutput } from "./message-output.js";
import { viewRequired } from "./parameter-view.js";
import type { ChatMappingOptions } from "./types.js";

/** A call whose text ended, waiting for the closing marker that follows it (see endCall). */
interface PendingCall {
  call: CallState;
  /** Where the call's text starts (absolute). */
  from: number;
  input: PegTextSource;
  /** Where the call's text ends, in `input`. */
  end: number;
}

/** The calls read so far, the one being read, and the sections they stand in. */
export class CallLedger {
  /** Calls emitted, then the one being read once it is named. */
  private readonly calls: CallState[] = [];
  /** The call whose node is open. */
  private call: CallState | null = null;
  /** Calls emitted. */
  private committed = 0;
  private pending: PendingCall | null = null;
  /** Start of the tool section being read (-1 outside one) and how many of its calls were emitted. */
  private sectionStart = -1;
  /** Inside calls read without their format's markers (NODE.unmarkedCalls). */
  unmarked = false;
  private sectionCalls = 0;
  /** Where the last call's text ended (its node or its closer), absolute; -1 before any. */
  private callTextEnd = -1;
  /**
   * After a call that is not one: where its text (now content) ended. The closers and section
   * end that follow it are its text too, until the next call starts (absolute; -1 when none).
   */
  private owedFrom = -1;
  /** Offset of the current parse segment in the input (see MessageMapper.startSegment). */
  private base = 0;
  /** Calls that start here or later (absolute) are streamed from their name on (see streamCallsFrom). */
  private streamFrom: number;
  /** A streamed call was cut: the output ended inside it. */
  private cut = false;

  /**
   * @param prefixLength Text before this offset came from the prompt: never content.
   * @param args Closes a call's arguments when its text ends.
   * @param output Where emitted calls, and the text of calls that are not, go.
   */
  constructor(
    private readonly mapping: ChatMappingOptions,
    private readonly newId: (index: number) => string,
    private readonly prefixLength: number,
    private readonly args: ArgumentWriter,
    private readonly output: MessageOutput,
  ) {
    this.streamFrom = mapping.streamCalls === true ? 0 : Number.POSITIVE_INFINITY;
  }

  /**
   * Calls whose text starts at `offset` (absolute) or later are held by a grammar from there on (a
   * lazy grammar's trigger): they are streamed from their name on, as `streamCalls` streams every call.
   */
  streamCallsFrom(offset: number): void {
    this.streamFrom = Math.min(this.streamFrom, offset);
  }

  /** A streamed call was cut: the output ended inside it (it stays a call, as far as written). */
  get cutCall(): boolean {
    return this.cut;
  }

  /** The call whose node is open, if any. */
  get current(): CallState | null {
    return this.call;
  }

  /** Any call was read (emitted, or named and being read). */
  get hasCalls(): boolean {
    return this.calls.length > 0;
  }

  /** Finished calls, and while the output streams the one being written (its arguments so far). */
  toolCalls(finished: boolean): ToolCall[] {
    return this.calls
      .filter((c) => c.committed || !finished)
      .map((c) => ({ id: this.idOf(c), type: "function", function: { name: c.name ?? "", arguments: c.args } }));
  }

  /** Appends raw text to the content: a call still waiting for its closer is settled first. */
  appendContent(text: string, start: number): void {
    this.settlePending();
    this.output.appendContent(text, start);
  }

  /** A parse of the input from `base` on starts: text owed to content so far stays where it is. */
  startSegment(base: number): void {
    this.settlePending();
    this.owedFrom = -1;
    this.base = base;
  }

  /**
   * Structured reading stops: the open call was not finished, so it is dropped. Returns where the
   * text that is content again starts (the call's, or its section's opener when no call of the
   * section was emitted; -1 when none), where the text owed after a call that is not one starts,
   * and, in a section left open after an emitted call, where that call's text ended (what the
   * section read after it, a partial closer, is no call's text).
   */
  stopReading(): { textFrom: number; owedFrom: number; tailFrom: number } {
    this.settlePending();
    const call = this.call;
    this.call = null;
    let textFrom = -1;
    if (call !== null && call.streamed !== null) {
      this.endStream(call, null);
      this.cut = true;
    } else if (call !== null) {
      this.dropCall(call);
      textFrom = call.start;
    } else if (this.sectionStart >= 0 && this.sectionCalls === 0) textFrom = this.sectionStart;
    const tailFrom =
      (call === null || call.streamed !== null) && this.sectionStart >= 0 && this.sectionCalls > 0
        ? this.callTextEnd
        : -1;
    const owedFrom = this.owedFrom;
    this.owedFrom = -1;
    this.sectionStart = -1;
    return { textFrom, owedFrom, tailFrom };
  }

  /**
   * The reading of a call or section is taken back: a call not emitted yet goes with it (calls
   * emit nothing before they are finished), and so does the text it had taken.
   */
  takeBackCall(): void {
    // A streamed call has produced output: the mapper never takes one back (takenBackWhole).
    if (this.call !== null && this.call.streamed === null) this.dropCall(this.call);
    if (this.pending !== null && this.pending.call.streamed === null) this.dropCall(this.pending.call);
    this.call = null;
    this.pending = null;
  }

  /** The reading of a section is taken back: one with no call emitted is forgotten. */
  takeBackSection(): void {
    if (this.sectionCalls === 0) this.sectionStart = -1;
  }

  /** A tool section opens at `start` (absolute). */
  openSection(start: number): void {
    this.sectionStart = start;
    this.sectionCalls = 0;
  }

  /** A tool section closes at `localEnd`: text owed after a call that is not one is paid up to there. */
  closeSection(input: PegTextSource, localEnd: number): void {
    this.settlePending();
    this.output.extendCallSpan(localEnd + this.base);
    this.payOwed(input, localEnd);
    this.owedFrom = -1;
    this.sectionStart = -1;
  }

  /** A call's node opens at `nodeStart` (absolute). */
  startCall(nodeStart: number): void {
    this.settlePending();
    this.owedFrom = -1;
    if (this.call) this.dropCall(this.call);
    this.call = newCallState(this.callStart(nodeStart));
    this.call.held = nodeStart >= this.streamFrom;
    this.call.unmarked = this.unmarked;
  }

  /** The open call's name was read: the call takes its place among the calls. */
  nameCall(text: string): void {
    const call = this.call;
    if (!call || call.name !== null) return;
    const name = text.trim();
    call.name = this.mapping.nameEscapes ? unescapeName(name, this.mapping.nameEscapes) : name;
    call.index = this.calls.length;
    this.calls.push(call);
    if (this.streams(call)) this.startStream(call);
  }

  /** A streamed call's arguments written since the last delta go out (see ChatMappingOptions.streamCalls). */
  flushStreamed(): void {
    const call = this.call;
    if (call === null || call.streamed === null) return;
    // A tagged argument's key waiting for its value may still be taken back (dropDanglingKey).
    const safe = call.awaitingValue && call.keyStart >= 0 ? call.keyStart : call.args.length;
    if (safe > call.streamed.length) this.streamArguments(call, call.args.slice(0, safe));
  }

  /** The open call's id, as the model wrote it (quotes taken off). */
  readModelId(text: string): void {
    const call = this.call;
    if (!call || this.mapping.ignoreModelIds) return;
    const id = text.trim().replace(/^["']|["']$/g, "");
    if (call.id === null && id !== "") call.id = id;
  }

  /** The open call's node closes at `localEnd`. */
  closeCall(input: PegTextSource, localEnd: number): void {
    const call = this.call;
    this.call = null;
    this.callTextEnd = localEnd + this.base;
    if (call) this.endCall(call, input, localEnd);
  }

  /** A call's closing marker was read, ending at `localEnd` (its text belongs to the call). */
  readCallEnd(input: PegTextSource, localEnd: number): void {
    this.callTextEnd = localEnd + this.base;
    this.output.extendCallSpan(this.callTextEnd);
    if (this.call) this.call.closed = true;
    else if (this.pending !== null) {
      // The closer's text belongs to the call (content too, if the call is not one).
      this.pending.call.closed = true;
      this.pending.end = localEnd;
      this.pending.input = input;
      this.settlePending();
    } else this.payOwed(input, localEnd);
  }

  /** A call waiting for its closing marker: the output went on without it, so it is content. */
  settlePending(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const end = pending.end + this.base;
    this.settle(pending.call, pending.from, end, this.textOf(pending.from, pending.input, pending.end));
  }

  /**
   * Where a call's text starts: its section's opener when no call of the section was emitted,
   * else the end of the call before it (so a per-call opener outside the call's node is its text).
   */
  private callStart(nodeStart: number): number {
    if (this.sectionStart >= 0 && this.sectionCalls === 0) return Math.min(this.sectionStart, nodeStart);
    return this.callTextEnd >= this.base && this.callTextEnd < nodeStart ? this.callTextEnd : nodeStart;
  }

  /**
   * A call's text ended: emitted when the model finished it (its closing marker read, where the
   * format has one) and its arguments hold; otherwise its text, `start` to `end`, is content.
   */
  private endCall(call: CallState, input: PegTextSource, localEnd: number): void {
    if (call.index < 0) return; // never named: its text stays where the parse put it
    this.args.closeArguments(call);
    const from = Math.max(call.start, this.prefixLength);
    // A closer outside the call's node (a per-call end marker) decides once it is read.
    if (this.mapping.callEndRequired === true && !call.closed) this.pending = { call, from, input, end: localEnd };
    else this.settle(call, from, localEnd + this.base, this.textOf(from, input, localEnd));
  }

  /** A call's text from `from` on, read only if it turns out not to be a call (reads stay linear). */
  private textOf(from: number, input: PegTextSource, localEnd: number): () => string {
    return () => (from - this.base < localEnd ? input.slice(from - this.base, localEnd) : "");
  }

  /**
   * Emits a call the model finished whose arguments hold; else its text (`from` to `end`,
   * absolute) is content, and so are the markers that close it (owedFrom).
   */
  private settle(call: CallState, from: number, end: number, text: () => string): void {
    if (call.streamed !== null) {
      this.endStream(call, this.finishedArguments(call));
      this.output.callSpan(from, end);
      return;
    }
    const args = this.finishedArguments(call);
    if (args === null) {
      this.dropCall(call);
      const raw = text();
      if (raw !== "") this.appendContent(raw, from);
      this.owedFrom = Math.max(from, end);
      // An abandoned section is read again from after it, not from its opener (no text twice).
      this.moveSectionStart();
      return;
    }
    call.args = args;
    call.id = this.idOf(call);
    call.committed = true;
    // The content on either side of an emitted call joins as written (MessageOutput.contentGap).
    this.output.callSpan(from, end);
    const index = this.committed++;
    if (this.sectionStart >= 0) this.sectionCalls++;
    this.output.pushToolDelta({
      index,
      id: call.id,
      type: "function",
      function: { name: call.name!, arguments: args },
    });
  }

  /** Whether a call just named is streamed: the format and tool allow it (ChatMappingOptions.streamCalls). */
  private streams(call: CallState): boolean {
    const tools = this.mapping.toolParameters;
    // A model id after the name belongs in the first delta; a nameless call is named by its arguments.
    if (!call.held || this.mapping.idAfterName || call.name === "") return false;
    return tools === undefined || Object.hasOwn(tools, call.name!);
  }

  /** Emits a streamed call's first delta: its id and name, no arguments yet. */
  private startStream(call: CallState): void {
    call.id = this.idOf(call);
    call.committed = true;
    call.streamed = "";
    const index = this.committed++;
    if (this.sectionStart >= 0) this.sectionCalls++;
    this.output.pushToolDelta({ index, id: call.id, type: "function", function: { name: call.name!, arguments: "" } });
  }

  /** Emits what a streamed call's arguments added to `args` (which extends what was emitted). */
  private streamArguments(call: CallState, args: string): void {
    const more = args.slice(call.streamed!.length);
    call.streamed = args;
    if (more !== "") this.output.pushToolDelta({ index: this.indexOf(call), function: { arguments: more } });
  }

  /**
   * A streamed call's text ended, finished (`checked`: its arguments as a whole call's would be) or
   * cut (null). Its arguments are what was written; the checked ones where they extend what went out.
   */
  private endStream(call: CallState, checked: string | null): void {
    const args = checked?.startsWith(call.streamed!) ? checked : call.args;
    if (args.startsWith(call.streamed!)) this.streamArguments(call, args);
    call.args = call.streamed!;
  }

  /** A committed call's index among the emitted calls. */
  private indexOf(call: CallState): number {
    let index = 0;
    for (const c of this.calls) {
      if (c === call) return index;
      if (c.committed) index++;
    }
    return index;
  }

  /** The arguments to emit for a call whose text ended, or null when it is not a call. */
  private finishedArguments(call: CallState): string | null {
    const finished = call.closed || this.mapping.callEndRequired !== true;
    // A call written without its name (a bare counter) names the one tool its arguments fit.
    if (call.name === "") call.name = toolNameFromArguments(call.args, this.mapping.toolParameters ?? {}) ?? "";
    const tools = this.mapping.toolParameters;
    // A call to a tool the request does not declare is not one (its text is content).
    const declared = call.name !== "" && (tools === undefined || Object.hasOwn(tools, call.name!));
    const schema = tools?.[call.name!];
    // A JSON call read without the format's markers must write its arguments (JSON in prose is no call).
    const required = call.unmarked && this.mapping.argumentsRequired ? true : this.mapping.argumentsRequired;
    const written = call.argsWritten || required === undefined || required === false;
    if (!written && required === "where-declared" && declared && requiresNothing(schema)) call.args = "{}";
    else if (!written) return null;
    return finished && declared ? finishCallArguments(call.args, call.argNames, schema) : null;
  }

  /** The text after a call that is not one, up to `localEnd`, is content too (see owedFrom). */
  private payOwed(input: PegTextSource, localEnd: number): void {
    const from = this.owedFrom;
    if (from < this.base || localEnd + this.base <= from) return;
    this.owedFrom = localEnd + this.base;
    this.appendContent(input.slice(from - this.base, localEnd), from);
    this.moveSectionStart();
  }

  /** In a section with no call emitted, its text up to owedFrom is content already. */
  private moveSectionStart(): void {
    if (this.sectionStart >= 0 && this.sectionCalls === 0 && this.sectionStart < this.owedFrom)
      this.sectionStart = this.owedFrom;
  }

  /** Forgets a call that is not one (unfinished or malformed). */
  private dropCall(call: CallState): void {
    const at = this.calls.indexOf(call);
    if (at >= 0) this.calls.splice(at, 1);
    call.index = -1;
  }

  /** The call's id: the model's own, else one made for it (made once). */
  private idOf(call: CallState): string {
    if (call.id !== null && !this.mapping.ignoreModelIds) return call.id;
    // Calls are emitted in order: the one being read gets the next index.
    call.madeId ??= this.newId(this.committed);
    return call.madeId;
  }
}

/** A tool whose parameters require no argument (a call may leave its arguments out). */
function requiresNothing(schema: unknown): boolean {
  return typeof schema !== "object" || schema === null || viewRequired(schema as JsonSchema).length === 0;
}
