/**
 * The bytes of a chat's images: in memory already, in a data URL, or in a file (a path or a
 * `file:` URL). Web URLs are refused: a server that fetched every URL a request names could be
 * made to reach hosts its callers cannot.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { ImageSource } from "../chat/media-parts.js";
import { MediaError } from "../runtime/projector.js";

function invalid(message: string, cause?: unknown): MediaError {
  return new MediaError(message, "TOOLWRIGHT_MEDIA_INVALID", { cause });
}

function fromDataUrl(url: string, where: string): Uint8Array {
  const comma = url.indexOf(",");
  if (comma < 0) throw invalid(`${where}: the data URL has no "," before its data`);
  const header = url.slice(5, comma);
  const data = url.slice(comma + 1);
  if (header.split(";").includes("base64")) return Buffer.from(data, "base64");
  try {
    return Buffer.from(decodeURIComponent(data), "latin1");
  } catch (err) {
    throw invalid(`${where}: the data URL's data is not percent-encoded correctly`, err);
  }
}

/**
 * The encoded image file of `source` (decoding it is the projector's job).
 *
 * @example
 * const bytes = await readImage({ url: "data:image/png;base64,iVBORw0KGgo…", where: "messages[0].content[1]" });
 */
export async function readImage(source: ImageSource): Promise<Uint8Array> {
  if ("bytes" in source) return source.bytes;
  const { url, where } = source;
  if (/^data:/i.test(url)) return fromDataUrl(url, where);
  if (/^https?:/i.test(url)) {
    throw invalid(
      `${where}: ${JSON.stringify(url.slice(0, 80))} is a web URL, and toolwright does not download images: ` +
        `fetch it yourself and pass the bytes ({ type: "image", image }) or a data URL`,
    );
  }
  const path = /^file:/i.test(url) ? fileURLToPath(url) : url;
  try {
    return await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    throw invalid(`${where}: cannot read the image file ${JSON.stringify(path)} (${code || String(err)})`, err);
  }
}
