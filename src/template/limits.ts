/**
 * The budget one render runs under. Python Jinja2's sandbox bounds only `range()` (MAX_RANGE,
 * matched in `globals.ts`); everything else a hostile template can do — nested loops of 1e10
 * iterations, a list or string doubled in a loop, `"x" * 10**12` — would run forever or end the
 * process on V8's heap limit. Past these bounds rendering stops with a `TemplateRuntimeError`
 * (`pythonType` "MemoryError" for a size, "LimitError" for steps) naming the
 * bound, far above what any chat template needs (a 1M-token conversation renders in well under a
 * million steps and a few MB).
 *
 * @example
 * import { ChatTemplate, TemplateRuntimeError } from "toolwright/template";
 * try { new ChatTemplate("{{ 'x' * 10**12 }}").render({ messages: [] }); }
 * catch (e) { (e as TemplateRuntimeError).pythonType; } // "MemoryError"
 */
import { PyError } from "./py-values.js";

/** Statements executed plus loop iterations in one render. */
export const MAX_RENDER_STEPS = 20_000_000;
/** Items of a list/tuple or code units of a string one operation may build, and characters one render may output. */
export const MAX_VALUE_LENGTH = 1 << 25;

/** Throws MemoryError when an operation is about to build a value of `length` items/characters. */
export function checkLength(length: number, what: string): void {
  if (!(length <= MAX_VALUE_LENGTH)) {
    throw new PyError(
      "MemoryError",
      `${what} of ${length} would exceed the render budget of ${MAX_VALUE_LENGTH} items or characters per value`,
    );
  }
}
