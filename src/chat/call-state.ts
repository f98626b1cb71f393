/**
 * One tool call as the mapper reads it (mapper.ts): where its text starts, what was read of its
 * name, id and arguments so far, and whether the model finished it and it was emitted.
 */
import type { JsonNormalizer } from "./json-normalizer.js";

/** One call being mapped. */
export interface CallState {
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
  /** Emitted, as a finished call, or from its name on (`ChatMappingOptions.streamCalls`). */
  committed: boolean;
  /** Streamed from its name on: the arguments text emitted so far; null otherwise. */
  streamed: string | null;
  /** Its node starts where a grammar holds the output (see CallLedger.streamCallsFrom). */
  held: boolean;
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
  /** The call was read without its format's markers (its arguments field must be written). */
  unmarked: boolean;
  /** Number of tagged arguments started. */
  tagged: number;
  /** A tagged argument's name was written and its value has not started. */
  awaitingValue: boolean;
  /** Tagged values written as nested elements (`argObject` / `argArray`) still open, innermost last. */
  nested: NestedFrame[];
}

/** An object or array value written as nested tagged elements; its bracket opens with its first member. */
export interface NestedFrame {
  kind: "object" | "array";
  members: number;
  /** Where its text starts in the call's arguments. */
  start: number;
  /** An object's member names so far, and whether one came again (`<tag>a</tag><tag>b</tag>`). */
  names: Set<string>;
  repeated: boolean;
}

/** A call whose text starts at input offset `start`, nothing of it read yet. */
export function newCallState(start: number): CallState {
  return {
    index: -1,
    name: null,
    id: null,
    madeId: null,
    start,
    closed: false,
    committed: false,
    streamed: null,
    held: false,
    args: "",
    argNames: [],
    keyStart: -1,
    json: null,
    tagged: 0,
    argsWritten: false,
    unmarked: false,
    awaitingValue: false,
    nested: [],
  };
}
