/**
 * LoRA adapters: low-rank weight deltas loaded for one model and applied to its contexts with a
 * scale (llama.cpp's adapter GGUF format, as convert_lora_to_gguf.py writes it).
 */
import { resolve } from "node:path";
import { loadNative } from "./binding.js";
import type { NativeLoraAdapter } from "./binding-types.js";
import { LoraError, disposedError, errorCode } from "./errors.js";
import type { Model } from "./model.js";
import { checkKeys, checkObject, describe, optNumber } from "../validate/index.js";

/** One adapter applied to a context: `scale` multiplies its delta (default 1; 0: as if absent). */
export interface LoraSpec {
  adapter: LoraAdapter;
  scale?: number;
}

const registry = new FinalizationRegistry<NativeLoraAdapter>((native) => native.dispose());

/**
 * A LoRA adapter loaded for a model ({@link Model.loadLora}). Apply it with
 * {@link Context.setLoras} or `createContext({ loras })`; it is freed with its model, or by
 * {@link LoraAdapter.dispose} once no context applies it any more.
 *
 * @example
 * import { loadModel } from "toolwright";
 * await using model = await loadModel("model.gguf");
 * await using adapter = await model.loadLora("adapter.gguf");
 * await using context = await model.createContext({ loras: [{ adapter, scale: 0.5 }] });
 */
export class LoraAdapter {
  /** The model it was loaded for. */
  readonly model: Model;
  /** The adapter file. */
  readonly path: string;
  /** Its `adapter.lora.alpha` (0 when the file has none). */
  readonly alpha: number;
  #native: NativeLoraAdapter | undefined;

  /** @internal Use {@link Model.loadLora}. */
  static async load(model: Model, path: string): Promise<LoraAdapter> {
    try {
      return new LoraAdapter(model, path, await loadNative().LoraAdapter.load(model.native, path));
    } catch (err) {
      const code = errorCode(err);
      if (code === undefined) throw err;
      throw new LoraError((err as Error).message, code, path, { cause: err });
    }
  }

  private constructor(model: Model, path: string, native: NativeLoraAdapter) {
    this.model = model;
    this.path = path;
    this.alpha = native.info().alpha;
    this.#native = native;
    registry.register(this, native, this);
  }

  /** @internal The live native handle. */
  get native(): NativeLoraAdapter {
    if (!this.#native) throw disposedError(`LoRA adapter "${this.path}" is disposed`);
    return this.#native;
  }

  /**
   * Whether {@link LoraAdapter.dispose} was called (directly or by disposing the model).
   *
   * @example
   * if (!adapter.disposed) adapter.dispose();
   */
  get disposed(): boolean {
    return this.#native === undefined;
  }

  /**
   * Lets the adapter go: it is freed once no context applies it. Idempotent.
   *
   * @example
   * adapter.dispose();
   */
  dispose(): void {
    if (!this.#native) return;
    registry.unregister(this);
    this.#native.dispose();
    this.#native = undefined;
  }

  /**
   * `await using adapter = await model.loadLora(path)` disposes it at the end of the scope.
   *
   * @example
   * { await using adapter = await model.loadLora("adapter.gguf"); }
   */
  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  /**
   * Same as {@link LoraAdapter.dispose}, for `using`.
   *
   * @example
   * { using adapter = await model.loadLora("adapter.gguf"); }
   */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * Checks a list of {@link LoraSpec} for `model`: each an object with a live adapter of that model and a
 * finite scale. Returns the native form.
 */
export function checkLoras(
  value: unknown,
  name: string,
  model: Model,
): { adapter: NativeLoraAdapter; scale: number; spec: LoraSpec }[] {
  if (!Array.isArray(value))
    throw new TypeError(`${name} must be an array of { adapter, scale }, got ${describe(value)}`);
  return value.map((entry, i) => {
    const o = checkObject(entry, `${name}[${i}]`);
    checkKeys(o, ["adapter", "scale"], `${name}[${i}]`);
    if (!(o.adapter instanceof LoraAdapter))
      throw new TypeError(`${name}[${i}].adapter must be a LoraAdapter (model.loadLora()), got ${describe(o.adapter)}`);
    const adapter = o.adapter.native; // throws TOOLWRIGHT_DISPOSED first: its model may be gone too
    if (o.adapter.model !== model)
      throw new RangeError(`${name}[${i}].adapter "${o.adapter.path}" was loaded for another model`);
    const scale = optNumber(o.scale, `${name}[${i}].scale`, -1e6, 1e6) ?? 1;
    return { adapter, scale, spec: { adapter: o.adapter, scale } };
  });
}

/** The applied adapters as a saved state records them: "absolute path@scale", in order. */
export function loraNames(loras: readonly LoraSpec[]): string[] {
  return loras.map(({ adapter, scale }) => `${resolve(adapter.path)}@${scale ?? 1}`);
}
