/**
 * Call ids that a format writes around the function name. Templates that number calls in the
 * name markers (Kimi K2: `functions.NAME:0`, the template's own id for the call, which its tool
 * results refer back to) give the model's call its id: the identifier-like text from the name
 * prefix's tail to the suffix's counter. Where the analysis found such a counter and no separate
 * call id, that span is the call's id (as llama.cpp reads it).
 */
import type { ToolFunctionAnalysis } from "../analysis/index.js";

/** The parts of the name markers that belong to the call's handle. */
export interface NameHandle {
  /** The tail of the name prefix that is part of the handle ("functions."). */
  before: string;
  /** The head of the name suffix that is part of the handle (":0"). */
  after: string;
}

const ID_TAIL = /[A-Za-z0-9_.:-]+$/;
const ID_HEAD = /^[A-Za-z0-9_.:-]+/;

/**
 * The handle around a function name, or null when the name markers carry no call counter next
 * to the name.
 *
 * @example
 * nameHandle({ namePrefix: "functions.", nameSuffix: ":0<|tool_call_argument_begin|>", ... });
 * // { before: "functions.", after: ":0" }
 * nameHandle({ namePrefix: "<function=", nameSuffix: ">\n", ... }); // null
 */
export function nameHandle(fn: Pick<ToolFunctionAnalysis, "namePrefix" | "nameSuffix">): NameHandle | null {
  const before = ID_TAIL.exec(fn.namePrefix)?.[0] ?? "";
  const after = ID_HEAD.exec(fn.nameSuffix)?.[0] ?? "";
  return /\d/.test(before + after) ? { before, after } : null;
}
