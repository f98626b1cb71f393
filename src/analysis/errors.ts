/**
 * Errors raised by template analysis.
 *
 * @example
 * try { analyzeTemplate(src); } catch (e) { if (e instanceof TemplateAnalysisError) console.log(e.message); }
 */

/** The template's renderings could not be analysed (e.g. a tool call that is not valid JSON). */
export class TemplateAnalysisError extends Error {
  override name = "TemplateAnalysisError";
}
