/**
 * Chat-template rendering with Python Jinja2 parity, plus capability detection.
 *
 * @example
 * import { ChatTemplate } from "toolwright/template";
 * const tpl = new ChatTemplate(source);
 * tpl.render({ messages: [{ role: "user", content: "Hi" }] });
 *
 * @module toolwright/template
 */
export { ChatTemplate } from "./chat-template.js";
export { TemplateError, TemplateSyntaxError, TemplateRuntimeError } from "./errors.js";
export type { RenderInput, TemplateCaps, ChatTemplateOptions, CompatMode, RenderMode, RenderResult } from "./types.js";
