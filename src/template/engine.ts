import { Environment, Interpreter, parse, tokenize } from "@huggingface/jinja";
import { TemplateError, TemplateSyntaxError } from "./errors.js";

/** Per-render hooks the engine needs from its owner. */
export interface RenderHooks {
  now: () => Date;
}

/** A template parsed once, rendered many times. */
export interface CompiledTemplate {
  render(context: Record<string, unknown>, hooks: RenderHooks): string;
}

const RAISE_MARK = "\u0000toolwright-raise\u0000";

/** Parses `source` once (stock engine; replaced by the parity evaluator). */
export function compileTemplate(source: string): CompiledTemplate {
  let program: ReturnType<typeof parse>;
  try {
    program = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
  } catch (e) {
    throw new TemplateSyntaxError(`chat template failed to compile: ${(e as Error).message}`);
  }
  return {
    render(context, hooks) {
      const env = new Environment();
      const globals: Record<string, unknown> = {
        false: false, true: true, none: null, False: false, True: true, None: null,
        raise_exception: (msg: string) => {
          throw new Error(RAISE_MARK + String(msg));
        },
        strftime_now: (fmt: string) => strftime(hooks.now(), fmt),
        ...context,
      };
      for (const [k, v] of Object.entries(globals)) env.set(k, v);
      try {
        return (new Interpreter(env).run(program) as { value: string }).value;
      } catch (e) {
        const msg = (e as Error).message;
        if (msg.startsWith(RAISE_MARK)) throw new TemplateError(msg.slice(RAISE_MARK.length));
        throw e;
      }
    },
  };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Python `datetime.strftime` for the directives chat templates use (local time, C locale). */
export function strftime(d: Date, fmt: string): string {
  const p2 = (n: number) => String(n).padStart(2, "0");
  return fmt.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case "Y": return String(d.getFullYear());
      case "y": return p2(d.getFullYear() % 100);
      case "m": return p2(d.getMonth() + 1);
      case "d": return p2(d.getDate());
      case "e": return String(d.getDate()).padStart(2, " ");
      case "H": return p2(d.getHours());
      case "I": return p2(((d.getHours() + 11) % 12) + 1);
      case "M": return p2(d.getMinutes());
      case "S": return p2(d.getSeconds());
      case "p": return d.getHours() < 12 ? "AM" : "PM";
      case "B": return MONTHS[d.getMonth()]!;
      case "b": return MONTHS[d.getMonth()]!.slice(0, 3);
      case "A": return DAYS[d.getDay()]!;
      case "a": return DAYS[d.getDay()]!.slice(0, 3);
      case "j": {
        const start = new Date(d.getFullYear(), 0, 1);
        const day = Math.round((new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime() - start.getTime()) / 86400000) + 1;
        return String(day).padStart(3, "0");
      }
      case "w": return String(d.getDay());
      case "%": return "%";
      default: return m;
    }
  });
}
