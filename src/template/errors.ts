/**
 * Errors raised while compiling or rendering a chat template.
 *
 * @example
 * try { tpl.render({ messages }); } catch (e) {
 *   if (e instanceof TemplateError) console.log("template refused:", e.message);
 * }
 */
import { ToolwrightError } from "../errors.js";

/**
 * The template itself refused the input via `raise_exception(...)`; `message` is the template's own text.
 *
 * @example
 * // gemma-2: new TemplateError("System role not supported")
 */
export class TemplateError extends ToolwrightError<"TOOLWRIGHT_TEMPLATE_RAISED"> {
  override name = "TemplateError";
  constructor(message: string) {
    super(message, "TOOLWRIGHT_TEMPLATE_RAISED");
  }
}

/**
 * The template source could not be compiled (lexer/parser error, unknown filter or test).
 *
 * @example
 * try {
 *   new ChatTemplate("{{ x|nosuch }}");
 * } catch (e) {
 *   (e as TemplateSyntaxError).pythonType; // "TemplateAssertionError"
 * }
 */
export class TemplateSyntaxError extends ToolwrightError<"TOOLWRIGHT_TEMPLATE_SYNTAX"> {
  override name = "TemplateSyntaxError";
  constructor(
    message: string,
    /** The matching Python exception: "TemplateSyntaxError", or "TemplateAssertionError" for unknown filters/tests. */
    readonly pythonType: string = "TemplateSyntaxError",
  ) {
    super(message, "TOOLWRIGHT_TEMPLATE_SYNTAX");
  }
}

/**
 * Rendering failed inside the engine the way Python Jinja2 would fail too (undefined attribute,
 * type error, sandbox violation). `pythonType` names the matching Python exception class.
 *
 * @example
 * // "{{ 'a' + 1 }}" → TemplateRuntimeError('can only concatenate str (not "int") to str', "TypeError")
 */
export class TemplateRuntimeError extends ToolwrightError<"TOOLWRIGHT_TEMPLATE_RUNTIME"> {
  override name = "TemplateRuntimeError";
  constructor(
    message: string,
    /** e.g. "UndefinedError", "TypeError", "SecurityError", "ValueError". */
    readonly pythonType: string,
  ) {
    super(message, "TOOLWRIGHT_TEMPLATE_RUNTIME");
  }
}
