/**
 * What the mapper (mapper.ts) has produced: the content and reasoning texts, and the deltas not
 * drained yet. Every piece of output goes out once, as a delta; consecutive pieces of one kind
 * join one delta, so a stream sends few.
 */
import type { AssistantMessage, ToolCall } from "../types.js";
import type { ReasoningInContent, SplitPiece } from "./reasoning-in-content.js";
import { TextField } from "./text-field.js";
import type { ChatDelta, ToolCallDelta } from "./types.js";

/** The mapped message's texts and pending deltas. */
export class MessageOutput {
  /** @param split Splits content text at reasoning markers (reasoning-in-content.ts), or null. */
  constructor(private readonly split: ReasoningInContent | null = null) {}

  private readonly content = new TextField();
  private readonly reasoning = new TextField();
  private contentText = "";
  private reasoningText = "";
  private deltas: ChatDelta[] = [];
  /** The last content text came from an inline reasoning block. */
  private afterInlineReasoning = false;
  /** The last text split from content was reasoning: the content after it joins the content before. */
  private afterSplitReasoning = false;
  private pushes = 0;
  private lastTextEnd = -1;
  private textOf: ((from: number, to: number) => string) | null = null;
  /** Where the calls since the last content start and end (-1: none). */
  private callStart = -1;
  private callEnd = -1;

  /** Counts the pieces pushed (texts, held whitespace included, and calls): unchanged, nothing was produced. */
  get version(): number {
    return this.pushes;
  }

  /** Content or reasoning text was produced. */
  get hasText(): boolean {
    return this.contentText !== "" || this.reasoningText !== "";
  }

  /** Input offset after the last content or reasoning text pushed (-1 before any). */
  get textEnd(): number {
    return this.lastTextEnd;
  }

  /** Reads the input between two offsets (the text around a call, to join the content as written). */
  readTextWith(textOf: (from: number, to: number) => string): void {
    this.textOf = textOf;
  }

  /** An emitted call's text spans input offsets `start` to `end` (see contentGap). */
  callSpan(start: number, end: number): void {
    this.callStart = this.callStart < 0 ? start : Math.min(this.callStart, start);
    this.callEnd = Math.max(this.callEnd, end);
  }

  /** A closer of the calls just emitted (their own or their section's) ends at `end`. */
  extendCallSpan(end: number): void {
    if (this.callStart >= 0) this.callEnd = Math.max(this.callEnd, end);
  }

  /** Adds raw text at input offset `start` to the content (output the parser could not place). */
  appendContent(text: string, start: number): void {
    this.pushed(text, start);
    this.placeContent(text, start, false);
  }

  /** Adds a content capture's text; `inline`: it is an inline reasoning block, markers included. */
  captureContent(text: string, start: number, inline: boolean): void {
    this.pushed(text, start);
    // Content right after an inline reasoning block joins it as written, without a separator.
    this.placeContent(text, start, this.afterInlineReasoning && !inline, inline);
    this.afterInlineReasoning = inline;
  }

  /** Content text, split at reasoning markers where the model opens reasoning after content. */
  private placeContent(text: string, start: number, joined: boolean, inline = false): void {
    if (this.split === null || inline) {
      this.pushContent(text, start, joined);
      return;
    }
    for (const piece of this.split.feed(text, start)) this.placePiece(piece, joined);
  }

  private placePiece(piece: SplitPiece, joined: boolean): void {
    if (piece.field === "reasoning") {
      const out = this.reasoning.push(piece.text, piece.start);
      if (out !== "") this.emitText("reasoning_content", out);
      this.afterSplitReasoning = true;
      return;
    }
    this.pushContent(piece.text, piece.start, joined || this.afterSplitReasoning);
    this.afterSplitReasoning = false;
  }

  /** Places held split text (a marker's start that went no further) before output of another kind. */
  private flushSplit(): void {
    if (this.split !== null) for (const piece of this.split.flush()) this.placePiece(piece, false);
  }

  private pushContent(text: string, start: number, joined: boolean): void {
    const out = this.content.push(text, start, joined, this.contentGap(start));
    if (out !== "") this.emitText("content", out);
  }

  /**
   * What joins content at `start` to the content before it: across nothing but calls, the whitespace the
   * model wrote around them; across anything else (another message or block, a reasoning block) nothing: the
   * pieces join as written, as serving projects return them (none of their tests adds a separator there).
   */
  private contentGap(start: number): string {
    const [from, to] = [this.callStart, this.callEnd];
    this.callStart = -1;
    this.callEnd = -1;
    const end = this.content.end;
    // Only whitespace the parse passed over between the two (a rejected call's trailing space): that whitespace.
    if (from < 0 && this.textOf !== null && end >= 0 && start > end && this.textOf(end, start).trim() === "")
      return this.textOf(end, start);
    if (from < 0 || this.textOf === null || end < 0 || start <= end || from < end || to > start) return "";
    // A call read with the whitespace around it (markerless JSON calls) was written with that whitespace too.
    const call = this.textOf(from, to);
    const before = this.textOf(end, from) + call.slice(0, call.length - call.trimStart().length);
    const after = call.slice(call.trimEnd().length) + this.textOf(to, start);
    return before.trim() === "" && after.trim() === "" ? before + after : "";
  }

  /** Adds a reasoning capture's text. */
  captureReasoning(text: string, start: number): void {
    this.flushSplit();
    this.pushed(text, start);
    const out = this.reasoning.push(text, start);
    if (out !== "") this.emitText("reasoning_content", out);
  }

  /** Emits a call, or more of one (arguments only), joining the last delta where it can. */
  pushToolDelta(d: ToolCallDelta): void {
    this.flushSplit();
    this.pushes++;
    const last = this.deltas[this.deltas.length - 1];
    const prev = last?.tool_calls?.[last.tool_calls.length - 1];
    if (prev && prev.index === d.index && d.id === undefined && prev.function.arguments !== undefined) {
      prev.function.arguments += d.function.arguments ?? "";
      return;
    }
    if (last?.tool_calls && Object.keys(last).length === 1) last.tool_calls.push(d);
    else this.deltas.push({ tool_calls: [d] });
  }

  /** The texts end: trailing whitespace held back is dropped. */
  finish(): void {
    this.flushSplit();
    this.content.finish();
    this.reasoning.finish();
  }

  /** Deltas produced since the last call. */
  drain(): ChatDelta[] {
    const out = this.deltas;
    this.deltas = [];
    return out;
  }

  /** The message: the texts so far and `toolCalls`. */
  message(toolCalls: ToolCall[]): AssistantMessage {
    const msg: AssistantMessage = {
      role: "assistant",
      content: this.contentText !== "" ? this.contentText : toolCalls.length > 0 ? null : "",
    };
    if (this.reasoningText !== "") msg.reasoning_content = this.reasoningText;
    if (toolCalls.length > 0) msg.tool_calls = toolCalls;
    return msg;
  }

  private pushed(text: string, start: number): void {
    this.pushes++;
    this.lastTextEnd = Math.max(this.lastTextEnd, start + text.length);
  }

  private emitText(field: "content" | "reasoning_content", text: string): void {
    if (field === "content") this.contentText += text;
    else this.reasoningText += text;
    const last = this.deltas[this.deltas.length - 1];
    if (last && Object.keys(last).length === 1 && last[field] !== undefined) last[field] += text;
    else this.deltas.push({ [field]: text });
  }
}
