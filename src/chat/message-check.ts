/**
 * The shape of chat messages at the API boundary (OpenAI's rules), checked before anything
 * renders them: each error names `messages[i]` and the field.
 */
import type { ChatMessage } from "../types.js";

/** The kind of a value, for messages about message fields. */
export function kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

const ROLES = ["system", "developer", "user", "assistant", "tool"];
const OTHER_MEDIA_PARTS = new Set(["input_audio", "audio", "file", "video", "video_url", "input_image"]);

/** An image part's shape: `{type: "image_url", image_url: {url}}` or `{type: "image", image: bytes}`. */
function imagePartOk(part: Record<string, unknown>, where: string): void {
  if (part.type === "image") {
    if (!(part.image instanceof Uint8Array))
      throw new TypeError(`${where}.image must be a Uint8Array (an encoded image file), got ${kind(part.image)}`);
    return;
  }
  const image = part.image_url as { url?: unknown } | null | undefined;
  if (image === null || typeof image !== "object")
    throw new TypeError(`${where}.image_url must be {url}, got ${kind(image)}`);
  if (typeof image.url !== "string" || image.url === "")
    throw new TypeError(
      `${where}.image_url.url must be a data URL, a file path or a file: URL, got ${kind(image.url)}`,
    );
}

function partsOk(content: unknown[], at: string, images: boolean): void {
  content.forEach((part: unknown, j) => {
    const where = `${at}[${j}]`;
    if (part === null || typeof part !== "object" || Array.isArray(part))
      throw new TypeError(`${where} must be a content part ({type: "text", text}), got ${kind(part)}`);
    const type = (part as { type?: unknown }).type;
    if (type === "image_url" || type === "image") {
      if (!images)
        throw new RangeError(
          `${where} is an image part (type ${JSON.stringify(type)}): only user messages carry images`,
        );
      imagePartOk(part as Record<string, unknown>, where);
      return;
    }
    if (typeof type === "string" && OTHER_MEDIA_PARTS.has(type)) {
      throw new RangeError(
        `${where} is a ${JSON.stringify(type)} part: toolwright reads text and images ({type: "image_url"}) only`,
      );
    }
    if (type !== "text") {
      const got = typeof type === "string" ? JSON.stringify(type) : kind(type);
      throw new TypeError(`${where}.type must be "text", "image_url" or "image", got ${got}`);
    }
    const text = (part as { text?: unknown }).text;
    if (typeof text !== "string") throw new TypeError(`${where}.text must be a string, got ${kind(text)}`);
  });
}

function contentOk(content: unknown, at: string, nullable: boolean, images = false): void {
  if (typeof content === "string") return;
  if (Array.isArray(content)) {
    partsOk(content, at, images);
    return;
  }
  if ((content === null || content === undefined) && nullable) return;
  if (content === undefined) throw new TypeError(`${at} is missing (a string or an array of text parts)`);
  throw new TypeError(`${at} must be a string or an array of text parts, got ${kind(content)}`);
}

/**
 * Checks the shape of each message at the API boundary (OpenAI's rules): a known role; content a
 * string or text parts (null or missing only on an assistant message with tool calls or
 * reasoning); well-formed tool calls; a tool message's `tool_call_id`. Errors name
 * `messages[i]` and the field. `where` prefixes them ("chat: options").
 *
 * @example
 * checkMessages([{ role: "tool", content: "21" }], "chat: options");
 * // TypeError: chat: options.messages[0].tool_call_id is missing: a tool message answers the call with that id
 */
export function checkMessages(messages: unknown, where: string): void {
  checkMessageList(messages, `${where}.messages`);
}

/**
 * {@link checkMessages} of a list that messages name `name` ("chat: options.messages").
 *
 * @example
 * checkMessageList([{ role: "robot", content: "x" }], "chat: options.messages"); // RangeError naming messages[0].role
 */
export function checkMessageList(messages: unknown, name: string): ChatMessage[] {
  if (!Array.isArray(messages)) throw new TypeError(`${name} must be an array of messages, got ${kind(messages)}`);
  messages.forEach((m: unknown, i) => {
    const at = `${name}[${i}]`;
    if (m === null || typeof m !== "object" || Array.isArray(m))
      throw new TypeError(`${at} must be a message object, got ${kind(m)}`);
    const msg = m as Record<string, unknown>;
    if (typeof msg.role !== "string" || !ROLES.includes(msg.role)) {
      throw new RangeError(
        `${at}.role must be "system", "developer", "user", "assistant" or "tool", got ` +
          `${msg.role === undefined ? "nothing" : JSON.stringify(msg.role)}`,
      );
    }
    if (msg.role === "assistant") {
      const calls = msg.tool_calls;
      if (calls !== undefined && calls !== null) {
        if (!Array.isArray(calls)) throw new TypeError(`${at}.tool_calls must be an array, got ${kind(calls)}`);
        calls.forEach((c: unknown, j) => {
          const ca = `${at}.tool_calls[${j}]`;
          const call = c as { function?: { name?: unknown; arguments?: unknown } } | null;
          if (
            call === null ||
            typeof call !== "object" ||
            call.function === null ||
            typeof call.function !== "object"
          ) {
            throw new TypeError(`${ca} must be {id, type: "function", function: {name, arguments}}, got ${kind(c)}`);
          }
          if (typeof call.function.name !== "string")
            throw new TypeError(`${ca}.function.name must be a string, got ${kind(call.function.name)}`);
          const args = call.function.arguments;
          if (args !== undefined && typeof args !== "string" && (args === null || typeof args !== "object")) {
            throw new TypeError(`${ca}.function.arguments must be a JSON string, got ${kind(args)}`);
          }
        });
      }
      const reasoning = msg.reasoning_content;
      if (reasoning !== undefined && reasoning !== null && typeof reasoning !== "string")
        throw new TypeError(`${at}.reasoning_content must be a string, got ${kind(reasoning)}`);
      const nullable =
        (Array.isArray(calls) && calls.length > 0) || (typeof reasoning === "string" && reasoning !== "");
      if (!nullable && (msg.content === null || msg.content === undefined)) {
        throw new TypeError(
          `${at}.content is ${msg.content === null ? "null" : "missing"}: an assistant message needs content ` +
            `unless it has tool_calls`,
        );
      }
      contentOk(msg.content, `${at}.content`, nullable);
      return;
    }
    if (msg.content === null)
      throw new TypeError(`${at}.content is null: a ${msg.role} message needs a string or an array of text parts`);
    contentOk(msg.content, `${at}.content`, false, msg.role === "user");
    if (msg.role === "tool") {
      if (msg.tool_call_id === undefined || msg.tool_call_id === null)
        throw new TypeError(`${at}.tool_call_id is missing: a tool message answers the call with that id`);
      if (typeof msg.tool_call_id !== "string")
        throw new TypeError(`${at}.tool_call_id must be a string, got ${kind(msg.tool_call_id)}`);
    }
  });
  return messages as ChatMessage[];
}
