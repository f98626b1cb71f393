import type { ChatMessage, ContentPart } from "../types.js";
import type { TemplateCaps } from "./types.js";

/** A message as the template sees it: like ChatMessage, but arguments may be objects. */
export type TemplateMessage = Record<string, unknown>;

function textOf(content: string | ContentPart[] | null | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((p) => p.text).join("");
}

function parseArguments(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    const parsed: unknown = JSON.parse(args);
    // Only JSON objects become objects; anything else stays the string the caller sent.
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : args;
  } catch {
    return args;
  }
}

/**
 * Adapts OpenAI-shaped messages to what a template can render, given its caps:
 * arguments as object or JSON string, system prompt folded into the first user turn when the
 * template has no system role, string content turned into text parts when parts are required
 * (and parts joined to a string when only strings work).
 *
 * @example
 * const msgs = polyfillMessages(messages, tpl.caps);
 */
export function polyfillMessages(messages: ChatMessage[], caps: TemplateCaps): TemplateMessage[] {
  let out: TemplateMessage[] = messages.map((m) => ({ ...m }) as TemplateMessage);

  if (!caps.supportsSystemRole) {
    const systemText = out
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content as string | ContentPart[]))
      .join("\n\n");
    out = out.filter((m) => m.role !== "system" && m.role !== "developer");
    if (systemText !== "") {
      const firstUser = out.findIndex((m) => m.role === "user");
      if (firstUser >= 0) {
        const u = out[firstUser]!;
        out[firstUser] = { ...u, content: systemText + "\n\n" + textOf(u.content as string | ContentPart[]) };
      } else {
        out.unshift({ role: "user", content: systemText });
      }
    }
  }

  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    const content = m.content as string | ContentPart[] | null | undefined;
    if (caps.requiresTypedContent && typeof content === "string") {
      m.content = [{ type: "text", text: content }];
    } else if (!caps.supportsTypedContent && Array.isArray(content)) {
      m.content = textOf(content);
    }
    if (Array.isArray(m.tool_calls)) {
      m.tool_calls = (m.tool_calls as Record<string, unknown>[]).map((call) => {
        const fn = (call.function ?? {}) as Record<string, unknown>;
        const args = caps.supportsObjectArguments
          ? parseArguments(fn.arguments)
          : typeof fn.arguments === "string"
            ? fn.arguments
            : JSON.stringify(fn.arguments ?? {});
        return { ...call, function: { ...fn, arguments: args } };
      });
    }
  }
  return out;
}
