/**
 * The addon's projector classes (native/projector.h): an image projector loaded for a model, and
 * a prompt tokenized with images in it.
 */
import type { NativeModel } from "./binding-types.js";

export interface NativeProjectorInfo {
  path: string;
  vision: boolean;
  audio: boolean;
  /** The text that stands for one image in a prompt given to {@link NativeProjector.tokenize}. */
  marker: string;
}

/** One image of a {@link NativeMediaPrompt}: its placeholder tokens start at `offset`. */
export interface NativeMediaSpan {
  offset: number;
  length: number;
  /** The image's content hash. */
  id: string;
}

export interface NativeMediaPrompt {
  /** Text token ids, and one negative placeholder per position an image takes. */
  tokens(): Int32Array;
  media(): NativeMediaSpan[];
}

export interface NativeProjector {
  info(): NativeProjectorInfo;
  /** `text` holds the marker once per image, in order; the images are encoded files (PNG, JPEG, ...). */
  tokenize(
    text: string,
    images: readonly Uint8Array[],
    options: { addSpecial?: boolean; parseSpecial?: boolean },
  ): Promise<NativeMediaPrompt>;
  dispose(): void;
  readonly disposed: boolean;
}

export interface NativeProjectorClass {
  load(model: NativeModel, path: string, options: { threads?: number; useGpu?: boolean }): Promise<NativeProjector>;
}
