/**
 * Images: a multimodal projector (an "mmproj" GGUF, read by llama.cpp's mtmd library) loaded with
 * a model, and prompts tokenized with images in them. A model loaded with `projector` reads
 * images; its contexts evaluate a {@link MediaPrompt}'s images where the prompt has them.
 */
import type { NativeModel } from "./binding-types.js";
import type { NativeMediaPrompt, NativeProjector } from "./binding-projector.js";
import { ToolwrightError } from "../errors.js";
import { loadNative } from "./binding.js";
import { errorCode } from "./errors.js";

/** What a model's projector reads. */
export interface ProjectorInfo {
  /** The projector file. */
  path: string;
  /** Reads images. */
  vision: boolean;
  /** Reads audio. */
  audio: boolean;
  /** The text that stands for one image in a prompt given to `Model.tokenizeWithImages`. */
  marker: string;
}

/** One image in a {@link MediaPrompt}. */
export interface MediaPromptImage {
  /** Index in `tokens` of the image's first placeholder. */
  offset: number;
  /** Positions the image takes in the context. */
  length: number;
  /** A hash of the image's content. */
  id: string;
}

/**
 * The error of a projector that cannot be loaded (`code` TOOLWRIGHT_PROJECTOR_FAILED), of an
 * image that cannot be read (TOOLWRIGHT_MEDIA_INVALID), or of images sent to a model without a
 * projector (TOOLWRIGHT_NO_PROJECTOR).
 *
 * @example
 * import { MediaError } from "toolwright";
 * try { await model.chat({ messages }); } catch (e) { if (e instanceof MediaError) console.log(e.code); }
 */
export class MediaError extends ToolwrightError<MediaErrorCode> {
  override readonly name = "MediaError";
  constructor(message: string, code: MediaErrorCode, options?: { cause?: unknown }) {
    super(message, code, options);
  }
}

/** The codes of a {@link MediaError}. */
export type MediaErrorCode = "TOOLWRIGHT_PROJECTOR_FAILED" | "TOOLWRIGHT_MEDIA_INVALID" | "TOOLWRIGHT_NO_PROJECTOR";
const MEDIA_CODES: readonly MediaErrorCode[] = [
  "TOOLWRIGHT_PROJECTOR_FAILED",
  "TOOLWRIGHT_MEDIA_INVALID",
  "TOOLWRIGHT_NO_PROJECTOR",
];

/**
 * A prompt tokenized with images in it (`Model.tokenizeWithImages`): text token ids, and one
 * negative placeholder per context position an image takes. Give it to `Context.generate` as
 * `media`, with `tokens` that start with its tokens.
 *
 * @example
 * const media = await model.tokenizeWithImages(`What is this? ${model.projector!.marker}\n`, [png]);
 * const text = await context.generate({ tokens: media.tokens, media, maxTokens: 32 }).text();
 */
export class MediaPrompt {
  /** Text token ids and image placeholders (negative). */
  readonly tokens: Int32Array;
  /** The images, in prompt order. */
  readonly images: readonly MediaPromptImage[];
  /** @internal */
  readonly native: NativeMediaPrompt;

  /** @internal Use `Model.tokenizeWithImages`. */
  constructor(native: NativeMediaPrompt) {
    this.native = native;
    this.tokens = native.tokens();
    this.images = Object.freeze(native.media().map((m) => Object.freeze({ ...m })));
  }
}

/** The media code the addon put on `err`, else `fallback`. */
function mediaCode(err: unknown, fallback: MediaErrorCode): MediaErrorCode {
  const code = errorCode(err);
  return MEDIA_CODES.includes(code as MediaErrorCode) ? (code as MediaErrorCode) : fallback;
}

/** @internal Loads the projector at `path` for `model` (a TOOLWRIGHT_PROJECTOR_FAILED MediaError when it cannot). */
export async function loadProjector(model: NativeModel, path: string, threads: number): Promise<NativeProjector> {
  try {
    return await loadNative().Projector.load(model, path, { threads });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new MediaError(message, mediaCode(err, "TOOLWRIGHT_PROJECTOR_FAILED"), { cause: err });
  }
}

/** @internal Tokenizes `text` with `images` in place of its markers. */
export async function tokenizeWithImages(
  projector: NativeProjector,
  text: string,
  images: readonly Uint8Array[],
  options: { addSpecial: boolean; parseSpecial: boolean },
): Promise<MediaPrompt> {
  try {
    return new MediaPrompt(await projector.tokenize(text, images, options));
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new MediaError(message, mediaCode(err, "TOOLWRIGHT_MEDIA_INVALID"), { cause: err });
  }
}

/**
 * Checks `tokens` against `media`: a negative id only where `media` has that placeholder, and every
 * image of `media` whole. Returns a message naming the first fault, or undefined.
 */
export function mediaTokensFault(tokens: Int32Array, media: MediaPrompt): string | undefined {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as number;
    if (t < 0 && media.tokens[i] !== t) return `tokens[${i}] (${t}) is not the media prompt's image at that place`;
  }
  const cut = media.images.find((m) => m.offset + m.length > tokens.length || (tokens[m.offset] as number) >= 0);
  if (cut) return `tokens must start with the media prompt's tokens (its image at ${cut.offset} is missing)`;
  if (tokens.length > 0 && (tokens[tokens.length - 1] as number) < 0) return "the prompt must end with text";
  return undefined;
}
