/**
 * The budget one render runs under. A chat template is untrusted input (it comes inside a
 * downloaded GGUF), and Python Jinja2's sandbox bounds only `range()` (MAX_RANGE, matched in
 * `globals.ts`): nested loops of 1e10 iterations, a list or string doubled in a loop, `"x" * 10**12`
 * or a million tiny outputs would run for minutes or take gigabytes. So every unit of work a render
 * does counts against a single budget of steps: each statement, expression node, loop iteration
 * and call is a step, so is each list item built, and every CHARS_PER_STEP characters built, read
 * or output. Past
 * `MAX_RENDER_STEPS` rendering stops with a `TemplateRuntimeError` (`pythonType` "LimitError");
 * a single value longer than `MAX_VALUE_LENGTH` stops it with "MemoryError" before it is built.
 * The largest real template scenario uses well under 1% of the budget (test/oracle/template-steps.test.ts).
 *
 * The budget of the render now running is module state: rendering is synchronous, so the value
 * helpers (py-ops, filters, methods) charge it without a handle passed down to them.
 *
 * @example
 * import { ChatTemplate, TemplateRuntimeError } from "toolwright/template";
 * try { new ChatTemplate("{{ 'x' * 10**12 }}").render({ messages: [] }); }
 * catch (e) { (e as TemplateRuntimeError).pythonType; } // "MemoryError"
 */
import { PyError } from "./py-values.js";

/** Steps one render may take: about a second of CPU at most, and far under 256 MB of values built. */
export const MAX_RENDER_STEPS = 10_000_000;
/** Items of a list/tuple or code units of a string one operation may build. */
export const MAX_VALUE_LENGTH = 1 << 24;
/** How deeply statements and expressions may nest (the AST's depth), checked when compiling. */
export const MAX_NESTING_DEPTH = 256;

/** Characters built, read or output that cost one step (a character costs far less than a statement). */
export const CHARS_PER_STEP = 8;

// The budget of the render running now (rendering is synchronous; nested uses save and restore it).
let active: RenderBudget | undefined;

/**
 * The step counter of one render, kept in characters (a step is CHARS_PER_STEP of them). A budget
 * made while another is active (a render inside {@link withSharedBudget}) also counts against it.
 */
export class RenderBudget {
  #units = 0;
  readonly #maxUnits: number;
  readonly #parent: RenderBudget | undefined = active;
  constructor(readonly maxSteps: number = MAX_RENDER_STEPS) {
    this.#maxUnits = maxSteps * CHARS_PER_STEP;
  }

  /** Steps taken so far. */
  get steps(): number {
    return Math.ceil(this.#units / CHARS_PER_STEP);
  }

  /** Counts `n` steps. */
  charge(n: number): void {
    this.chargeChars(n * CHARS_PER_STEP);
  }

  /** Counts `n` characters; throws LimitError once the render has taken more than `maxSteps`. */
  chargeChars(n: number): void {
    this.#parent?.chargeChars(n);
    this.#units += n;
    if (this.#units > this.#maxUnits) {
      throw new PyError(
        "LimitError",
        `rendering took more than ${this.maxSteps} steps (statements, loop iterations, calls, items built ` +
          `and every ${CHARS_PER_STEP} characters built or output), the render budget`,
      );
    }
  }
}

/** Runs `fn` (one render) with `budget` as the budget that chargeSteps and checkLength count against. */
export function withBudget<T>(budget: RenderBudget, fn: () => T): T {
  const outer = active;
  active = budget;
  try {
    return fn();
  } finally {
    active = outer;
  }
}

/**
 * Runs `fn`, whose renders (capability probes, an analysis) share one budget of `maxSteps` on top
 * of each render's own: a hostile template fails every render after the budget is spent, at once.
 *
 * @example
 * const caps = withSharedBudget(() => detectCaps(runner));
 */
export function withSharedBudget<T>(fn: () => T, maxSteps: number = MAX_RENDER_STEPS): T {
  return withBudget(new RenderBudget(maxSteps), fn);
}

/** Counts `n` steps against the render now running (none outside a render). */
export function chargeSteps(n: number): void {
  active?.charge(n);
}

/** Counts `n` characters built, read or output against the render now running. */
export function chargeChars(n: number): void {
  active?.chargeChars(n);
}

/** `parts.join(sep)`, checked with checkLength and counted before it is built. */
export function checkedJoin(parts: string[], sep: string): string {
  let length = sep.length * Math.max(0, parts.length - 1);
  for (const p of parts) length += p.length;
  checkLength(length, "a joined string");
  return parts.join(sep);
}

/** Throws MemoryError when a value of `length` items or characters would be past MAX_VALUE_LENGTH. */
export function boundLength(length: number, what: string): void {
  if (!(length <= MAX_VALUE_LENGTH)) {
    throw new PyError(
      "MemoryError",
      `${what} of ${length} would exceed the render budget of ${MAX_VALUE_LENGTH} items or characters per value`,
    );
  }
}

/**
 * Before an operation builds a value of `length` characters (or list items, `unit` "item"): throws
 * MemoryError past MAX_VALUE_LENGTH, else counts the building against the budget.
 */
export function checkLength(length: number, what: string, unit: "char" | "item" = "char"): void {
  boundLength(length, what);
  if (unit === "item") active?.charge(length);
  else active?.chargeChars(length);
}

/**
 * Before concatenating strings of `a` and `b` characters. V8 builds a rope, so only the shorter
 * side is counted: appending to an accumulator (`ns.out ~ piece`) stays linear. The copy a rope
 * costs later, when it is read, is counted where the evaluator reads strings.
 */
export function checkConcat(a: number, b: number): void {
  boundLength(a + b, "a string");
  active?.chargeChars(Math.min(a, b));
}
