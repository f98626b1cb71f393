/**
 * The mapper: parse trees → OpenAI assistant message, incrementally. It is fed the tree
 * snapshots of a growing parse and walks each only from where the previous one left off
 * (a cursor per tree depth), so streaming costs stay linear in the output. Every piece of
 * output is emitted once, as a delta; the message is the sum of the deltas.
 *
 * Tool calls: arguments are normalised to compact JSON as they are read (Python literals and
 * quotes converted, tagged string values quoted and escaped). A call is emitted, as one delta,
 * only once the model has finished writing it (call-finish.ts): its arguments are then checked
 * (an object, no argument twice) and repaired where the schema says how. A call the model did
 * not finish, or that is malformed, is never a call: its text is content. While the output
 * streams, `message()` also shows the call being written (llama.cpp's partial messages).
 */
import type { PegNodeList, PegTextSource, PegTreeNode } from "../peg/index.js";
import type { AssistantMessage, ToolCall } from "../types.js";
import { finishCallArguments, toolNameFromArguments } from "./call-finish.js";
import { JsonNormalizer, escapeJsonStringContent } from "./json-normalizer.js";
import { PythonStringContent } from "./python-string.js";
import { TextField } from "./text-field.js";
import { NODE } from "./tree-names.js";
import type { ChatDelta, ChatMappingOptions, ToolCallDelta } from "./types.js";

/** One call being mapped. */
interface CallState {
  /** Position among the calls being read once the name is known, else -1. */
  index: number;
  name: string | null;
  id: string | null;
  /** The id made for the call when the model wrote none (once asked for). */
  madeId: string | null;
  /** Input offset where the call's text starts (its section's opener, for a section's first call). */
  start: number;
  /** The call's closing marker was read (formats whose calls must be closed: `callEndRequired`). */
  closed: boolean;
  /** Emitted, as a finished call. */
  committed: boolean;
  /** Arguments read so far (compact JSON, closed when the call ends). */
  args: string;
  /** Names of the tagged arguments read (an argument written twice makes the call malformed). */
  argNames: string[];
  /** Offset in `args` where the key of a tagged argument still waiting for its value starts, else -1. */
  keyStart: number;
  /** JSON arguments (`tool-args`). */
  json: JsonNormalizer | null;
  /** The call's arguments field was written (see ChatMappingOptions.argumentsRequired). */
  argsWritten: boolean;
  /** Number of tagged arguments started. */
  tagged: number;
  /** A tagged argument's name was written and its value has not started. */
  awaitingValue: boolean;
  /** Tagged values written as nested elements (`argObject` / `argArray`) still open, innermost last. */
  nested: NestedFrame[];
}

/** An object or array value written as nested tagged elements; its bracket opens with its first member. */
interface NestedFrame {
  kind: "object" | "array";
  members: number;
}

/** The value of the tagged argument being read. */
interface ValueState {
  kind: "string" | "json";
  opened: boolean;
  norm: JsonNormalizer | null;
  /** The inside of a quoted Python string (`arg-py-string`), fed to `norm`. */
  py?: PythonStringContent;
}

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
  private readonly content = new TextField();
  private readonly reasoning = new TextField();
  private contentText = "";
  private reasoningText = "";
  private readonly calls: CallState[] = [];
  private committed = 0;
  private call: CallState | null = null;
  /** A call whose text ended, waiting for the closing marker that follows it (see endCall). */
  private pending: { call: CallState; from: number; input: PegTextSource; end: number } | null = null;
  /** Start of the tool section being read (-1 outside one) and how many of its calls were emitted. */
  private sectionStart = -1;
  private sectionCalls = 0;
  /** Where the last call's text ended (its node or its closer), absolute; -1 before any. */
  private callTextEnd = -1;
  /**
   * After a call that is not one: where its text (now content) ended. The closers and section
   * end that follow it are its text too, until the next call starts (absolute; -1 when none).
   */
  private owedFrom = -1;
  /** Offset of the current parse segment in the input (a parse restarted after unparsable text). */
  private base = 0;
  private value: ValueState | null = null;
  private deltas: ChatDelta[] = [];
  private cutAt = 0;
  private finished = false;
  /** The last content text came from an inline reasoning block. */
  private afterInlineReasoning = false;

  /**
   * @param prefixLength Text before this offset came from the prompt (a parser prefix): it is
   *   never part of the message, even where a capture covers it.
   */
  constructor(
    private readonly mapping: ChatMappingOptions,
    private readonly newId: (index: number) => string,
    private readonly prefixLength = 0,
  ) {}

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
    this.walk(nodes, 0, input);
    return true;
  }

  /** Appends raw text to the content (output the parser could not place). */
  appendContent(text: string, start: number): void {
    this.settlePending();
    const out = this.content.push(text, start);
    if (out !== "") this.emitText("content", out);
  }

  /**
   * Structured reading stops (the parse failed, or the output ended): the call still open was not
   * finished, so it is dropped and {@link cut} moves back to where its text starts (its section's
   * opener when no call of the section was emitted): that text is content.
   */
  closeStructures(): boolean {
    this.settlePending();
    this.value = null;
    const call = this.call;
    this.call = null;
    let from = -1;
    if (call !== null) {
      this.dropCall(call);
      from = call.start;
    } else if (this.sectionStart >= 0 && this.sectionCalls === 0) from = this.sectionStart;
    // Markers read after a call that is not one are its text: the content goes on from there.
    if (this.owedFrom >= 0 && this.owedFrom < this.cutAt) this.cutAt = this.owedFrom;
    this.owedFrom = -1;
    this.sectionStart = -1;
    if (from < 0) return false;
    this.cutAt = from;
    return true;
  }

  /**
   * Starts mapping the trees of a new parse that reads the input from `base` on (the mapping so
   * far stays: calls, content, reasoning).
   */
  startSegment(base: number): void {
    this.settlePending();
    this.owedFrom = -1;
    this.levels.length = 0;
    this.base = base;
    if (base > this.cutAt) this.cutAt = base;
  }

  /** Closes whatever is still open (calls, values, text fields). Idempotent. */
  finish(): void {
    if (this.finished) return;
    this.closeStructures();
    this.content.finish();
    this.reasoning.finish();
    this.finished = true;
  }

  /** Deltas produced since the last call. */
  drain(): ChatDelta[] {
    const out = this.deltas;
    this.deltas = [];
    return out;
  }

  /** The message as mapped so far. */
  message(): AssistantMessage {
    // Finished calls, and while the output streams the one being written (its arguments so far).
    const toolCalls: ToolCall[] = this.calls
      .filter((c) => c.committed || !this.finished)
      .map((c) => ({ id: this.idOf(c), type: "function", function: { name: c.name ?? "", arguments: c.args } }));
    const msg: AssistantMessage = {
      role: "assistant",
      content: this.contentText !== "" ? this.contentText : toolCalls.length > 0 ? null : "",
    };
    if (this.reasoningText !== "") msg.reasoning_content = this.reasoningText;
    if (toolCalls.length > 0) msg.tool_calls = toolCalls;
    return msg;
  }

  // ---- cursor walk --------------------------------------------------------------------

  private verify(nodes: PegNodeList, depth: number): boolean {
    const level = this.levels[depth];
    if (!level || level.openStart < 0) return nodes.length >= (level?.done ?? 0) || !this.anyOutput();
    const n = nodes.at(level.done);
    if (!n || n.start !== level.openStart || n.name !== level.openName) return !level.emitted;
    if (n.kind === "capture") return n.end >= level.processedEnd;
    return this.verify(n.childList, depth + 1);
  }

  private anyOutput(): boolean {
    return this.contentText !== "" || this.reasoningText !== "" || this.calls.length > 0;
  }

  /** Maps `nodes` from the cursor on; returns whether anything in them produced output. */
  private walk(nodes: PegNodeList, depth: number, input: PegTextSource): boolean {
    let level = this.levels[depth];
    if (!level) {
      level = { done: 0, openStart: -1, openName: "", processedEnd: 0, emitted: false };
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
        // A structure that produced output was recognised up to its end (even if unfinished).
        if (level.emitted && n.end + this.base > this.cutAt) this.cutAt = n.end + this.base;
      }
      if (level.emitted) produced = true;
      if (n.incomplete) return produced;
      this.exit(n, input);
      if (n.kind === "tag" && n.end + this.base > this.cutAt) this.cutAt = n.end + this.base;
      level.done = i + 1;
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
      // A call not emitted yet goes with the reading that is taken back (calls emit nothing before
      // they are finished), and so does the text it had taken.
      if (this.call !== null) this.dropCall(this.call);
      if (this.pending !== null) this.dropCall(this.pending.call);
      this.call = null;
      this.pending = null;
      this.value = null;
      this.cutAt = Math.min(this.cutAt, level.openStart + this.base);
    }
    if (level.openName === NODE.toolSection && this.sectionCalls === 0) this.sectionStart = -1;
    if (level.openName === NODE.toolArg) this.value = null;
    // A nested value whose opener was taken back (only its frame exists: brackets open with members).
    if ((level.openName === NODE.argObject || level.openName === NODE.argArray) && this.call) this.call.nested.pop();
    level.openStart = -1;
  }

  private enter(n: PegTreeNode): void {
    if (n.kind !== "tag") return;
    if (n.name === NODE.argObject || n.name === NODE.argArray) {
      if (!this.call) return;
      this.call.awaitingValue = false;
      this.call.nested.push({ kind: n.name === NODE.argObject ? "object" : "array", members: 0 });
      return;
    }
    if (n.name === NODE.argItem) {
      const call = this.call;
      const top = call?.nested[call.nested.length - 1];
      if (!call || top?.kind !== "array") return;
      this.closeValue();
      this.emitArgs(call, top.members === 0 ? "[" : ",");
      top.members++;
      call.awaitingValue = true;
      return;
    }
    if (n.name === NODE.toolSection) {
      this.sectionStart = n.start + this.base;
      this.sectionCalls = 0;
      return;
    }
    if (n.name === NODE.tool) {
      this.settlePending();
      this.owedFrom = -1;
      if (this.call) this.dropCall(this.call);
      const start = this.callStart(n.start + this.base);
      this.call = {
        index: -1,
        name: null,
        id: null,
        madeId: null,
        start,
        closed: false,
        committed: false,
        args: "",
        argNames: [],
        keyStart: -1,
        json: null,
        tagged: 0,
        argsWritten: false,
        awaitingValue: false,
        nested: [],
      };
    }
  }

  /**
   * Where a call's text starts: its section's opener when no call of the section was emitted,
   * else the end of the call before it (so a per-call opener outside the call's node is its text).
   */
  private callStart(nodeStart: number): number {
    if (this.sectionStart >= 0 && this.sectionCalls === 0) return Math.min(this.sectionStart, nodeStart);
    return this.callTextEnd >= this.base && this.callTextEnd < nodeStart ? this.callTextEnd : nodeStart;
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

  private captureText(name: string, text: string, start: number, inline = false): void {
    if (start < this.prefixLength) {
      const skip = Math.min(text.length, this.prefixLength - start);
      text = text.slice(skip);
      start += skip;
      if (text === "") return;
    }
    if (name === NODE.content || name === NODE.reasoning) this.settlePending();
    switch (name) {
      case NODE.content: {
        // Content right after an inline reasoning block joins it as written, without a separator.
        const out = this.content.push(text, start, this.afterInlineReasoning && !inline);
        this.afterInlineReasoning = inline;
        if (out !== "") this.emitText("content", out);
        return;
      }
      case NODE.reasoning: {
        const out = this.reasoning.push(text, start);
        if (out !== "") this.emitText("reasoning_content", out);
        return;
      }
      case NODE.toolArgs: {
        const call = this.call;
        if (!call) return;
        call.json ??= new JsonNormalizer(this.mapping.valueDialect ?? null);
        call.argsWritten = true;
        this.emitArgs(call, call.json.push(text));
        return;
      }
      case NODE.argString: {
        const call = this.call;
        if (!call) return;
        call.awaitingValue = false;
        const v = (this.value ??= { kind: "string", opened: false, norm: null });
        if (!v.opened) {
          v.opened = true;
          this.emitArgs(call, '"');
        }
        this.emitArgs(call, escapeJsonStringContent(text));
        return;
      }
      case NODE.argJson: {
        const call = this.call;
        if (!call) return;
        call.awaitingValue = false;
        const v = (this.value ??= {
          kind: "json",
          opened: true,
          norm: new JsonNormalizer(this.mapping.valueDialect ?? null),
        });
        this.emitArgs(call, v.norm!.push(text));
        return;
      }
      case NODE.argPyString: {
        const call = this.call;
        if (!call) return;
        call.awaitingValue = false;
        if (!this.value) {
          const py = new PythonStringContent();
          this.value = { kind: "json", opened: true, norm: py.normalizer, py };
          this.emitArgs(call, py.open());
        }
        this.emitArgs(call, this.value.py?.push(text) ?? "");
        return;
      }
      default:
        // Names and ids are read whole when they close.
        return;
    }
  }

  private exit(n: PegTreeNode, input: PegTextSource): void {
    const call = this.call;
    if (n.name === NODE.toolSection) {
      this.settlePending();
      this.payOwed(input, n.end);
      this.owedFrom = -1;
      this.sectionStart = -1;
      return;
    }
    // An empty match is a closer the parse let the model leave out: the call is not closed.
    if (n.name === NODE.callEnd) {
      if (n.end === n.start) return;
      this.callTextEnd = n.end + this.base;
      if (call) call.closed = true;
      else if (this.pending !== null) {
        // The closer's text belongs to the call (content too, if the call is not one).
        this.pending.call.closed = true;
        this.pending.end = n.end;
        this.pending.input = input;
        this.settlePending();
      } else this.payOwed(input, n.end);
      return;
    }
    // Only names and ids are read whole: slicing every closing node would re-read each call's text.
    const text =
      n.name === NODE.toolName || n.name === NODE.toolId || n.name === NODE.argName ? input.slice(n.start, n.end) : "";
    switch (n.name) {
      case NODE.tool:
        this.call = null;
        this.callTextEnd = n.end + this.base;
        if (call) this.endCall(call, input, n.end);
        return;
      case NODE.argObject:
      case NODE.argArray:
        if (call) this.closeNested(call);
        return;
      case NODE.argItem:
        if (call) {
          this.closeValue();
          if (call.awaitingValue) this.emitArgs(call, "null");
          call.awaitingValue = false;
        }
        return;
      case NODE.toolName:
        if (!call || call.name !== null) return;
        call.name = text.trim();
        call.index = this.calls.length;
        this.calls.push(call);
        return;
      case NODE.toolId: {
        if (!call || this.mapping.ignoreModelIds) return;
        const id = text.trim().replace(/^["']|["']$/g, "");
        if (call.id === null && id !== "") call.id = id;
        return;
      }
      case NODE.toolArgs:
        if (call?.json) this.emitArgs(call, call.json.close());
        return;
      case NODE.argName: {
        if (!call) return;
        this.closeValue();
        const top = call.nested[call.nested.length - 1];
        if (top?.kind === "object") {
          if (call.awaitingValue) this.emitArgs(call, "null");
          this.emitArgs(call, `${top.members === 0 ? "{" : ","}${JSON.stringify(text.trim())}:`);
          top.members++;
        } else {
          // An argument named without a value (the model went on to the next one) is left out.
          if (call.awaitingValue && call.keyStart >= 0) this.dropDanglingKey(call);
          call.keyStart = call.args.length;
          call.argNames.push(text.trim());
          this.emitArgs(call, `${call.tagged === 0 ? "{" : ","}${JSON.stringify(text.trim())}:`);
          call.tagged++;
        }
        call.awaitingValue = true;
        return;
      }
      case NODE.argString:
      case NODE.argPyString:
      case NODE.argJson:
        this.closeValue(n.name === NODE.argJson ? "json" : "string");
        return;
      default:
        return;
    }
  }

  /** Closes the tagged value being read (an empty one becomes "" or null). */
  private closeValue(kind?: "string" | "json"): void {
    const call = this.call;
    const v = this.value;
    this.value = null;
    if (!call) return;
    if (!v) {
      if (kind === "string") this.emitArgs(call, '""');
      else if (kind === "json") this.emitArgs(call, "null");
      if (kind !== undefined) call.awaitingValue = false;
      return;
    }
    if (v.kind === "string") this.emitArgs(call, v.opened ? '"' : '""');
    else {
      const tail = v.norm!.close();
      this.emitArgs(call, v.norm!.hasValue ? tail : "null");
    }
  }

  /** Closes the innermost nested object / array value (a missing member value becomes null). */
  private closeNested(call: CallState): void {
    const frame = call.nested.pop();
    if (!frame) return;
    this.closeValue();
    if (call.awaitingValue) this.emitArgs(call, "null");
    call.awaitingValue = false;
    const [open, close] = frame.kind === "object" ? ["{", "}"] : ["[", "]"];
    this.emitArgs(call, frame.members === 0 ? open + close : close);
  }

  /** Closes the arguments of a call whose text ended (open values, brackets, a dangling key). */
  private closeArguments(call: CallState): void {
    if (call.json) {
      this.emitArgs(call, call.json.close());
      if (!call.json.hasValue) this.emitArgs(call, "{}");
    } else if (call.tagged > 0) {
      if (this.value) this.closeValue();
      while (call.nested.length > 0) this.closeNested(call);
      if (call.awaitingValue && call.keyStart >= 0) this.dropDanglingKey(call);
      this.emitArgs(call, call.tagged > 0 ? "}" : "{}");
    } else {
      this.emitArgs(call, "{}");
    }
    call.json = null;
    call.tagged = -1;
  }

  /**
   * A call's text ended: emitted when the model finished it (its closing marker read, where the
   * format has one) and its arguments hold; otherwise its text, `start` to `end`, is content.
   */
  private endCall(call: CallState, input: PegTextSource, localEnd: number): void {
    if (call.index < 0) return; // never named: its text stays where the parse put it
    this.closeArguments(call);
    const from = Math.max(call.start, this.prefixLength);
    // A closer outside the call's node (a per-call end marker) decides once it is read.
    if (this.mapping.callEndRequired === true && !call.closed) this.pending = { call, from, input, end: localEnd };
    else this.settle(call, from, localEnd + this.base, this.textOf(from, input, localEnd));
  }

  /** A call's text from `from` on, read only if it turns out not to be a call (reads stay linear). */
  private textOf(from: number, input: PegTextSource, localEnd: number): () => string {
    return () => (from - this.base < localEnd ? input.slice(from - this.base, localEnd) : "");
  }

  /** A call waiting for its closing marker: the output went on without it, so it is content. */
  private settlePending(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const end = pending.end + this.base;
    this.settle(pending.call, pending.from, end, this.textOf(pending.from, pending.input, pending.end));
  }

  /**
   * Emits a call the model finished whose arguments hold; else its text (`from` to `end`,
   * absolute) is content, and so are the markers that close it (owedFrom).
   */
  private settle(call: CallState, from: number, end: number, text: () => string): void {
    const finished = call.closed || this.mapping.callEndRequired !== true;
    // A call written without its name (a bare counter) names the one tool its arguments fit.
    if (call.name === "") call.name = toolNameFromArguments(call.args, this.mapping.toolParameters ?? {}) ?? "";
    const tools = this.mapping.toolParameters;
    // A call to a tool the request does not declare is not one (its text is content).
    const declared = call.name !== "" && (tools === undefined || Object.hasOwn(tools, call.name!));
    const written = call.argsWritten || this.mapping.argumentsRequired !== true;
    const args =
      finished && declared && written ? finishCallArguments(call.args, call.argNames, tools?.[call.name!]) : null;
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
    const index = this.committed++;
    if (this.sectionStart >= 0) this.sectionCalls++;
    this.pushToolDelta({ index, id: call.id, type: "function", function: { name: call.name!, arguments: args } });
  }

  /** Forgets a call that is not one (unfinished or malformed). */
  private dropCall(call: CallState): void {
    const at = this.calls.indexOf(call);
    if (at >= 0) this.calls.splice(at, 1);
    call.index = -1;
  }

  /** Takes back the key of a tagged argument that got no value. */
  private dropDanglingKey(call: CallState): void {
    const first = call.args[call.keyStart] === "{";
    call.args = call.args.slice(0, call.keyStart);
    call.argNames.pop();
    call.tagged--;
    call.keyStart = -1;
    call.awaitingValue = false;
    // Without the first key's "{", the next key opens the object.
    if (first) call.tagged = 0;
  }

  /** The call's id: the model's own, else one made for it (made once). */
  private idOf(call: CallState): string {
    if (call.id !== null && !this.mapping.ignoreModelIds) return call.id;
    // Calls are emitted in order: the one being read gets the next index.
    call.madeId ??= this.newId(this.committed);
    return call.madeId;
  }

  // ---- output -------------------------------------------------------------------------

  private emitArgs(call: CallState, text: string): void {
    call.args += text;
  }

  private emitText(field: "content" | "reasoning_content", text: string): void {
    if (field === "content") this.contentText += text;
    else this.reasoningText += text;
    const last = this.deltas[this.deltas.length - 1];
    if (last && Object.keys(last).length === 1 && last[field] !== undefined) last[field] += text;
    else this.deltas.push({ [field]: text });
  }

  private pushToolDelta(d: ToolCallDelta): void {
    const last = this.deltas[this.deltas.length - 1];
    const prev = last?.tool_calls?.[last.tool_calls.length - 1];
    if (prev && prev.index === d.index && d.id === undefined && prev.function.arguments !== undefined) {
      prev.function.arguments += d.function.arguments ?? "";
      return;
    }
    if (last?.tool_calls && Object.keys(last).length === 1) last.tool_calls.push(d);
    else this.deltas.push({ tool_calls: [d] });
  }
}
