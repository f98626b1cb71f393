/**
 * Compiles a template once and renders it: plain renders for output, tracked renders (usage
 * statistics of the inputs) for capability probes, each strict (Python Jinja2) or lenient
 * (compat.ts). Errors come out as the template/* error classes.
 *
 * @example
 * const compiled = compileTemplate(source, () => new Date());
 * compiled.render({ messages: [{ role: "user", content: "Hi" }] });
 */
import { compileSource, type Program } from "./syntax.js";
import { Evaluator } from "./evaluator.js";
import { makeGlobals } from "./globals.js";
import { hasFilter } from "./jinja-filters.js";
import { JINJA_TESTS } from "./jinja-tests.js";
import { UsageStats } from "./usage-stats.js";
import { TemplateError, TemplateRuntimeError } from "./errors.js";
import { PyError, fromJs, type PyDict, type PyValue } from "./py-values.js";

/** A template parsed once, rendered many times. */
export interface CompiledTemplate {
  /** Renders `context` (plain JSON-like data); `lenient` applies compat.ts's relaxations. */
  render(context: Record<string, unknown>, lenient?: boolean): string;
  /** Renders with usage tracking; `track` maps each input object to the value the template saw. */
  renderTracked(context: Record<string, unknown>, lenient?: boolean): TrackedRender;
}

/** A probe render: whether it succeeded, its output, and what it read. */
export interface TrackedRender {
  ok: boolean;
  output: string;
  error?: Error;
  stats: UsageStats;
  track: WeakMap<object, PyValue>;
}

/** Converts JS input to Python values, remembering which Python value each JS object became. */
function fromJsTracked(v: unknown, track: WeakMap<object, PyValue>): PyValue {
  if (v === null || typeof v !== "object") return fromJs(v);
  let out: PyValue;
  if (Array.isArray(v)) out = v.map((x) => fromJsTracked(x, track));
  else {
    const m: PyDict = new Map();
    for (const [k, x] of Object.entries(v as Record<string, unknown>))
      if (x !== undefined) m.set(k, fromJsTracked(x, track));
    out = m;
  }
  track.set(v, out);
  return out;
}

function wrapError(e: unknown): Error {
  if (e instanceof TemplateError || e instanceof TemplateRuntimeError) return e;
  if (e instanceof PyError) return new TemplateRuntimeError(e.message, e.pyType);
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new TemplateRuntimeError("chat template recursed too deeply", "RecursionError");
  }
  return new TemplateRuntimeError(
    `chat template rendering failed: ${(e as Error)?.message ?? String(e)}`,
    "InternalError",
  );
}

/** Parses `source` once; throws TemplateSyntaxError when it does not compile. */
export function compileTemplate(source: string, now: () => Date, allowMutation = false): CompiledTemplate {
  const program: Program = compileSource(source, {
    hasFilter,
    hasTest: (name) => JINJA_TESTS.has(name),
  });
  const globals = makeGlobals(now);
  const run = (context: PyDict, lenient: boolean, stats?: UsageStats): string => {
    try {
      return new Evaluator(program, globals, stats, { mutable: allowMutation, lenient }).render(context);
    } catch (e) {
      throw wrapError(e);
    }
  };
  return {
    render(context, lenient = false) {
      return run(fromJs(context) as PyDict, lenient);
    },
    renderTracked(context, lenient = false) {
      const track = new WeakMap<object, PyValue>();
      const stats = new UsageStats();
      const input = fromJsTracked(context, track) as PyDict;
      try {
        return { ok: true, output: run(input, lenient, stats), stats, track };
      } catch (e) {
        return { ok: false, output: "", error: e as Error, stats, track };
      }
    },
  };
}
