/**
 * Images in chat messages: before a template renders them, each image part becomes a text part
 * holding the projector's marker (as llama-server does), and the images are listed in prompt
 * order; the projector then puts each image where its marker is.
 */
import type { ChatMessage, ImagePart, ImageUrlPart } from "../types.js";

/** Where an image comes from: bytes in memory, or a URL (data URL, file path, file: URL). */
export type ImageSource = { bytes: Uint8Array; where: string } | { url: string; where: string };

/** Whether any message has an image part. */
export function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((m) => Array.isArray(m.content) && m.content.some(isImagePart));
}

function isImagePart(part: unknown): part is ImagePart | ImageUrlPart {
  const type = (part as { type?: unknown } | null)?.type;
  return type === "image" || type === "image_url";
}

/**
 * `messages` with every image part replaced by a text part of `marker`, and the images in the
 * order the template renders them (message order, then part order). `where` names the list in
 * the sources ("options.messages").
 *
 * @example
 * const { messages, images } = imagesToMarkers(list, "<__media__>", "chat: options.messages");
 */
export function imagesToMarkers(
  list: readonly ChatMessage[],
  marker: string,
  where: string,
): { messages: ChatMessage[]; images: ImageSource[] } {
  const images: ImageSource[] = [];
  const messages = list.map((message, i): ChatMessage => {
    if (!Array.isArray(message.content) || !message.content.some(isImagePart)) return message;
    const content = message.content.map((part, j) => {
      if (!isImagePart(part)) return part;
      const at = `${where}[${i}].content[${j}]`;
      images.push(part.type === "image" ? { bytes: part.image, where: at } : { url: part.image_url.url, where: at });
      return { type: "text" as const, text: marker };
    });
    return { ...message, content } as ChatMessage;
  });
  return { messages, images };
}
