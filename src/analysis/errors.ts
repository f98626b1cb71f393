/**
 * Errors raised by template analysis.
 *
 * @example
 * try { analyzeTemplate(src); } catch (e) { if (e instanceof TemplateAnalysisError) console.log(e.message); }
 */
import { ToolwrightError } from "../errors.js";

/** The template's renderings could not be analysed (e.g. a tool call that is not valid JSON). */
export class TemplateAnalysisError extends ToolwrightError<"TOOLWRIGHT_TEMPLATE_ANALYSIS"> {
  override name = "TemplateAnalysisError";
  constructor(message: string) {
    super(message, "TOOLWRIGHT_TEMPLATE_ANALYSIS");
  }
}
