/**
 * A call's arguments, written as compact JSON while the parse reads them (mapper.ts): JSON
 * arguments normalised (Python literals and quotes converted), tagged arguments as the members
 * of one object (string values quoted and escaped), values written as nested elements as
 * objects and arrays. What the model left open is closed when the call's text ends; an argument
 * named without a value is taken back.
 */
import { unescapeName } from "./name-escapes.js";
import type { PegTextSource, PegTreeNode } from "../peg/index.js";
import type { CallState } from "./call-state.js";
import { JsonNormalizer, escapeJsonStringContent } from "./json-normalizer.js";
import { PythonStringContent } from "./python-string.js";
import { repeatedAsLists } from "./repeated-members.js";
import { NODE } from "./tree-names.js";
import type { ChatMappingOptions } from "./types.js";

/** The value of the tagged argument being read. */
interface ValueState {
  kind: "string" | "json";
  opened: boolean;
  norm: JsonNormalizer | null;
  /** The inside of a quoted Python string (`arg-py-string`), fed to `norm`. */
  py?: PythonStringContent;
}

/** Writes the arguments of the call being read, node by node. */
export class ArgumentWriter {
  /** The tagged value being read, of the call being read. */
  private value: ValueState | null = null;

  constructor(private readonly mapping: ChatMappingOptions) {}

  /** Text of a capture node of the arguments (`tool-args` or a tagged value). */
  capture(name: string, call: CallState, text: string): void {
    switch (name) {
      case NODE.toolArgs:
        call.json ??= new JsonNormalizer(this.mapping.valueDialect ?? null);
        call.argsWritten = true;
        call.args += call.json.push(text);
        return;
      case NODE.argString:
        this.stringText(call, text);
        return;
      case NODE.argJson:
        this.jsonText(call, text);
        return;
      case NODE.argPyString:
        this.pythonStringText(call, text);
        return;
    }
  }

  /** A tag node of the arguments opens: a nested value, or an item of a nested array. */
  enter(name: string, call: CallState | null): void {
    if (!call) return;
    if (name === NODE.argObject || name === NODE.argArray) {
      call.awaitingValue = false;
      const kind = name === NODE.argObject ? "object" : "array";
      call.nested.push({ kind, members: 0, start: call.args.length, names: new Set(), repeated: false });
    } else if (name === NODE.argItem) this.openItem(call);
  }

  /** A node of the arguments closes. */
  exit(n: PegTreeNode, input: PegTextSource, call: CallState | null): void {
    switch (n.name) {
      case NODE.argObject:
      case NODE.argArray:
        if (call) this.closeNested(call);
        return;
      case NODE.argItem:
        if (call) this.closeItem(call);
        return;
      case NODE.toolArgs:
        if (call?.json) call.args += call.json.close();
        return;
      case NODE.argName:
        // Names are read whole when they close: slicing every closing node would re-read the text.
        if (call) this.writeName(call, this.nameOf(input.slice(n.start, n.end).trim()));
        return;
      case NODE.argString:
      case NODE.argPyString:
      case NODE.argJson:
        this.closeValue(call, n.name === NODE.argJson ? "json" : "string");
        return;
    }
  }

  /** Closes the arguments of a call whose text ended (open values, brackets, a dangling key). */
  closeArguments(call: CallState): void {
    if (call.json) {
      call.args += call.json.close();
      if (!call.json.hasValue) call.args += "{}";
    } else if (call.tagged > 0) {
      // The call's node closed without closing a value: the value is dropped as it stands.
      this.value = null;
      while (call.nested.length > 0) this.closeNested(call);
      if (call.awaitingValue && call.keyStart >= 0) dropDanglingKey(call);
      call.args += call.tagged > 0 ? "}" : "{}";
    } else {
      call.args += "{}";
    }
    call.json = null;
    call.tagged = -1;
  }

  /** Forgets the value being read (its reading was taken back, or structured reading stopped). */
  forgetValue(): void {
    this.value = null;
  }

  /** Forgets a nested value whose opener was taken back (only its frame exists: brackets open with members). */
  forgetNested(call: CallState): void {
    call.nested.pop();
  }

  private stringText(call: CallState, text: string): void {
    call.awaitingValue = false;
    const v = (this.value ??= { kind: "string", opened: false, norm: null });
    if (!v.opened) {
      v.opened = true;
      call.args += '"';
    }
    call.args += escapeJsonStringContent(text);
  }

  private jsonText(call: CallState, text: string): void {
    call.awaitingValue = false;
    const v = (this.value ??= {
      kind: "json",
      opened: true,
      norm: new JsonNormalizer(this.mapping.valueDialect ?? null),
    });
    call.args += v.norm!.push(text);
  }

  private pythonStringText(call: CallState, text: string): void {
    call.awaitingValue = false;
    if (!this.value) {
      const py = new PythonStringContent();
      this.value = { kind: "json", opened: true, norm: py.normalizer, py };
      call.args += py.open();
    }
    call.args += this.value.py?.push(text) ?? "";
  }

  /** A name as the model meant it (a format's escapes read back). */
  private nameOf(text: string): string {
    return this.mapping.nameEscapes ? unescapeName(text, this.mapping.nameEscapes) : text;
  }

  /** An argument's name (or a nested object's member name) closed: its key is written. */
  private writeName(call: CallState, name: string): void {
    this.closeValue(call);
    const top = call.nested[call.nested.length - 1];
    if (top?.kind === "object") {
      if (call.awaitingValue) call.args += "null";
      call.args += `${top.members === 0 ? "{" : ","}${JSON.stringify(name)}:`;
      top.members++;
      if (top.names.has(name)) top.repeated = true;
      top.names.add(name);
    } else {
      // An argument named without a value (the model went on to the next one) is left out.
      if (call.awaitingValue && call.keyStart >= 0) dropDanglingKey(call);
      call.keyStart = call.args.length;
      call.argNames.push(name);
      call.args += `${call.tagged === 0 ? "{" : ","}${JSON.stringify(name)}:`;
      call.tagged++;
    }
    call.awaitingValue = true;
  }

  /** An item of a nested array opens: its separator is written. */
  private openItem(call: CallState): void {
    const top = call.nested[call.nested.length - 1];
    if (top?.kind !== "array") return;
    this.closeValue(call);
    call.args += top.members === 0 ? "[" : ",";
    top.members++;
    call.awaitingValue = true;
  }

  /** An item of a nested array closes (an item without a value is null). */
  private closeItem(call: CallState): void {
    this.closeValue(call);
    if (call.awaitingValue) call.args += "null";
    call.awaitingValue = false;
  }

  /** Closes the tagged value being read (an empty one becomes "" or null). */
  private closeValue(call: CallState | null, kind?: "string" | "json"): void {
    const v = this.value;
    this.value = null;
    if (!call) return;
    if (!v) {
      if (kind === "string") call.args += '""';
      else if (kind === "json") call.args += "null";
      if (kind !== undefined) call.awaitingValue = false;
      return;
    }
    if (v.kind === "string") call.args += v.opened ? '"' : '""';
    else {
      const tail = v.norm!.close();
      call.args += v.norm!.hasValue ? tail : "null";
    }
  }

  /** Closes the innermost nested object / array value (a missing member value becomes null). */
  private closeNested(call: CallState): void {
    const frame = call.nested.pop();
    if (!frame) return;
    this.closeValue(call);
    if (call.awaitingValue) call.args += "null";
    call.awaitingValue = false;
    const [open, close] = frame.kind === "object" ? ["{", "}"] : ["[", "]"];
    call.args += frame.members === 0 ? open + close : close;
    // A member element written again is a list of its values (as XML reads repeated elements): none is lost. Not
    // where the arguments already went out as written (a streamed call).
    if (frame.repeated && call.streamed === null) {
      try {
        call.args = call.args.slice(0, frame.start) + repeatedAsLists(call.args.slice(frame.start));
      } catch {
        // Text that is no JSON object stays as written (the argument check reports it).
      }
    }
  }
}

/** Takes back the key of a tagged argument that got no value. */
function dropDanglingKey(call: CallState): void {
  const first = call.args[call.keyStart] === "{";
  call.args = call.args.slice(0, call.keyStart);
  call.argNames.pop();
  call.tagged--;
  call.keyStart = -1;
  call.awaitingValue = false;
  // Without the first key's "{", the next key opens the object.
  if (first) call.tagged = 0;
}
