import type { ChatMessage, ContentPart } from "../types.js";
import type { TemplateCaps } from "./types.js";
import { jsonDumps } from "./py-format.js";
import { fromJs } from "./py-values.js";

/** A message as the template sees it: like ChatMessage, but arguments may be objects. */
export type TemplateMessage = Record<string, unknown>;

/** What the polyfills need to know about a template besides its caps. */
export interface PolyfillTraits {
  /** The template source names the `developer` role itself (otherwise developer becomes system). */
  handlesDeveloperRole: boolean;
}

/** Text of string or typed content; parts are joined with "\n" (as llama.cpp joins them). */
function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return (content as ContentPart[])
      .filter((p) => p && p.type === "text")
      .map((p) => p.text)
      .join("\n");
  }
  return String(content);
}

function argumentsAsObject(args: unknown, where: string): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args) as unknown;
  } catch (e) {
    throw new RangeError(
      `${where} must be a JSON string, got ${JSON.stringify(args).slice(0, 80)} (${(e as Error).message})`,
    );
  }
}

/** Arguments as a JSON string, written like Python's json.dumps (", " and ": " separators). */
function argumentsAsString(args: unknown): string {
  if (typeof args === "string") return args;
  return jsonDumps(fromJs(args ?? {}), { ensureAscii: false });
}

/**
 * Adapts OpenAI-shaped messages to what a template can render, given its caps (the same input
 * workarounds llama.cpp applies): developer role mapped to system where the template does not
 * know it; system prompts folded into the first user turn when there is no system role; content
 * turned into text parts when parts are required, or parts joined when only strings work; null
 * content of tool-call turns made ""; arguments as objects or as JSON strings as the template reads them.
 *
 * @example
 * const msgs = polyfillMessages(messages, tpl.caps, { handlesDeveloperRole: false });
 */
export function polyfillMessages(
  messages: ChatMessage[],
  caps: TemplateCaps,
  traits: PolyfillTraits,
): TemplateMessage[] {
  let out: TemplateMessage[] = messages.map((m, i) => {
    if (m === null || typeof m !== "object" || typeof m.role !== "string") {
      throw new TypeError(
        `messages[${i}] must be an object with a string role, got ${JSON.stringify(m)?.slice(0, 80)}`,
      );
    }
    return { ...m } as TemplateMessage;
  });

  if (!traits.handlesDeveloperRole) {
    for (const m of out) if (m.role === "developer") m.role = "system";
  }

  if (!caps.supportsSystemRole) {
    const systemText = out
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content))
      .join("\n\n");
    out = out.filter((m) => m.role !== "system" && m.role !== "developer");
    if (systemText !== "") {
      const firstUser = out.findIndex((m) => m.role === "user");
      if (firstUser >= 0) {
        const u = out[firstUser]!;
        out[firstUser] = { ...u, content: systemText + "\n\n" + textOf(u.content) };
      } else {
        out.unshift({ role: "user", content: systemText });
      }
    }
  }

  const onlyString = caps.supportsStringContent && !caps.supportsTypedContent;
  out.forEach((m, i) => {
    if (caps.requiresTypedContent && typeof m.content === "string") {
      m.content = [{ type: "text", text: m.content }];
    } else if (onlyString && Array.isArray(m.content)) {
      m.content = textOf(m.content);
    }
    if (!Array.isArray(m.tool_calls)) return;
    if (caps.supportsToolCalls && (m.content === null || m.content === undefined)) m.content = "";
    m.tool_calls = (m.tool_calls as Record<string, unknown>[]).map((call, j) => {
      const fn = (call?.function ?? {}) as Record<string, unknown>;
      const where = `messages[${i}].tool_calls[${j}].function.arguments`;
      const args = caps.supportsObjectArguments
        ? argumentsAsObject(fn.arguments, where)
        : argumentsAsString(fn.arguments);
      return { ...call, function: { ...fn, arguments: args } };
    });
  });
  return out;
}
