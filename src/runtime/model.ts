/**
 * The `Model` class: a GGUF model's metadata, vocabulary and tokenizer, and the factory of
 * generation contexts (loading it is `load-model.ts`'s).
 */
import type { NativeModel, NativeSpecialTokens } from "./binding-types.js";
import { Context } from "./context.js";
import type { ContextOptions } from "./context-options.js";
import { Embedder, planEmbed, type EmbedOptions } from "./embedding.js";
import { planRank, rankPairTokens, Ranker, type RankOptions } from "./rank.js";
import { LoraAdapter } from "./lora.js";
import { AbortError, awaitNative, callNative, disposedError } from "./errors.js";
import { checkString, checkTokens, describe } from "../validate/index.js";
import { placementOf, type ModelPlacement } from "./devices.js";
import type { NativeProjector } from "./binding-projector.js";
import {
  type DetokenizeOptions,
  type ModelInfo,
  type SpecialTokens,
  TokenAttribute,
  type TokenKind,
  type TokenizeOptions,
  type Vocabulary,
  detokenizeOptions,
  tokenizeOptions,
} from "./model-types.js";
import { MediaError, tokenizeWithImages, type MediaPrompt, type ProjectorInfo } from "./projector.js";

const registry = new FinalizationRegistry<NativeModel>((native) => native.dispose());

/**
 * A loaded model. Create generation contexts with {@link Model.createContext}; free the weights
 * with {@link Model.dispose} (or `await using`).
 *
 * @example
 * await using model = await loadModel("model.gguf");
 * const tokens = model.tokenize("Hello");
 * console.log(model.detokenize(tokens));
 */
export class Model {
  /** The file this model was loaded from. */
  readonly path: string;
  /** Loaded with `vocabOnly` (tokenizer only, cannot generate). */
  readonly vocabOnly: boolean;
  /** Number of tokens in the vocabulary. */
  readonly vocabSize: number;
  /** Special tokens and BOS/EOS flags. */
  readonly specialTokens: Readonly<SpecialTokens>;
  /** Architecture facts. */
  readonly info: Readonly<ModelInfo>;
  /**
   * Where the weights are: the GPU devices used and the layers offloaded (none on the CPU).
   *
   * @example
   * const model = await loadModel("model.gguf", { gpu: "auto" });
   * console.log(model.placement.backend, model.placement.gpuLayers); // "CUDA" 25, or "cpu" 0
   */
  readonly placement: ModelPlacement;

  #native: NativeModel | undefined;
  #metadata: Readonly<Record<string, string>> | undefined;
  #eog: Set<number>;
  /** Weak, so a forgotten context can still be garbage-collected (and freed by its registry). */
  readonly #contexts = new Set<WeakRef<Context>>();
  #embedder: Embedder | undefined;
  #projector: NativeProjector | undefined;
  #projectorInfo: Readonly<ProjectorInfo> | undefined;
  #ranker: Ranker | undefined;
  /** Freed with the model. */
  readonly #adapters = new Set<WeakRef<LoraAdapter>>();

  /** @internal Use {@link loadModel}. */
  constructor(native: NativeModel, path: string) {
    this.#native = native;
    this.path = path;
    const info = native.info();
    this.vocabOnly = info.vocabOnly;
    this.vocabSize = info.vocabSize;
    const special: NativeSpecialTokens = native.specialTokens();
    this.specialTokens = Object.freeze({ ...special, eog: Object.freeze([...special.eog]) });
    this.#eog = new Set(special.eog);
    this.info = Object.freeze({
      description: info.description,
      vocabType: info.vocabType,
      trainContextSize: info.trainContextSize,
      embeddingSize: info.embeddingSize,
      layerCount: info.layerCount,
      sizeBytes: info.sizeBytes,
      parameterCount: info.parameterCount,
      hasEncoder: info.hasEncoder,
      isRecurrent: info.isRecurrent,
    });
    this.placement = placementOf(info.devices ?? [], info.gpuLayers ?? 0);
    registry.register(this, native, this);
  }

  /** @internal The live native handle. */
  get native(): NativeModel {
    if (!this.#native) throw disposedError(`Model "${this.path}" is disposed`);
    return this.#native;
  }

  /**
   * Whether {@link Model.dispose} was called.
   *
   * @example
   * if (!model.disposed) model.dispose();
   */
  get disposed(): boolean {
    return this.#native === undefined;
  }

  /**
   * The GGUF metadata: every scalar key as a string (arrays such as the token list are left out;
   * read them with the GGUF reader).
   *
   * @example
   * console.log(model.metadata["general.architecture"]); // "llama"
   */
  get metadata(): Readonly<Record<string, string>> {
    this.#metadata ??= Object.freeze(callNative(() => this.native.metadata()));
    return this.#metadata;
  }

  /**
   * The Jinja chat template (`tokenizer.chat_template`), or null when the file has none.
   *
   * @example
   * if (model.chatTemplate === null) console.log("no chat template");
   */
  get chatTemplate(): string | null {
    return callNative(() => this.native.chatTemplate(null));
  }

  /**
   * A named chat template (`tokenizer.chat_template.<name>`, e.g. "tool_use"), or null.
   *
   * @example
   * const toolTemplate = model.namedChatTemplate("tool_use") ?? model.chatTemplate;
   */
  namedChatTemplate(name: string): string | null {
    checkString(name, "Model.namedChatTemplate: name");
    return callNative(() => this.native.chatTemplate(name));
  }

  /**
   * The bytes a token stands for (special tokens rendered as their text).
   *
   * @example
   * new TextDecoder().decode(model.tokenBytes(model.specialTokens.eos)); // "</s>"
   */
  tokenBytes(token: number): Uint8Array {
    this.#checkToken(token, "Model.tokenBytes: token");
    return callNative(() => this.native.tokenPiece(token));
  }

  /**
   * The {@link TokenAttribute} flags of a token.
   *
   * @example
   * const isControl = (model.tokenAttributes(id) & TokenAttribute.control) !== 0;
   */
  tokenAttributes(token: number): number {
    this.#checkToken(token, "Model.tokenAttributes: token");
    return callNative(() => this.native.tokenAttributes(token));
  }

  /**
   * The main kind of a token: "control", "user-defined", "byte", "normal", ...
   *
   * @example
   * model.tokenKind(model.specialTokens.bos); // "control"
   */
  tokenKind(token: number): TokenKind {
    const a = this.tokenAttributes(token);
    if (a & TokenAttribute.control) return "control";
    if (a & TokenAttribute.userDefined) return "user-defined";
    if (a & TokenAttribute.byte) return "byte";
    if (a & TokenAttribute.normal) return "normal";
    if (a & TokenAttribute.unknown) return "unknown";
    if (a & TokenAttribute.unused) return "unused";
    return "undefined";
  }

  /**
   * Whether a token ends generation (EOS, EOT, `<|im_end|>`, ...).
   *
   * @example
   * model.isEndOfGeneration(model.specialTokens.eos); // true
   */
  isEndOfGeneration(token: number): boolean {
    this.#checkToken(token, "Model.isEndOfGeneration: token");
    return this.#eog.has(token);
  }

  /**
   * Every token's bytes and attributes in flat arrays, built on a worker thread.
   *
   * @example
   * const { bytes, offsets } = await model.vocabulary();
   * const piece = bytes.subarray(offsets[42], offsets[43]);
   */
  async vocabulary(): Promise<Vocabulary> {
    return awaitNative(() => this.native.vocabulary());
  }

  /**
   * Tokenizes text on the calling thread. Meant for short strings (it blocks for about a
   * microsecond per byte); use {@link Model.tokenizeAsync} for long inputs.
   *
   * @example
   * model.tokenize("<|im_start|>user", { addSpecial: false }); // Int32Array [151644, 872]
   */
  tokenize(text: string, options: TokenizeOptions = {}): Int32Array {
    checkString(text, "Model.tokenize: text");
    const opts = tokenizeOptions(options, "Model.tokenize");
    return callNative(() => this.native.tokenize(text, opts));
  }

  /**
   * Tokenizes text on a worker thread (any length; the event loop keeps running).
   *
   * @example
   * const tokens = await model.tokenizeAsync(longDocument);
   */
  async tokenizeAsync(text: string, options: TokenizeOptions = {}): Promise<Int32Array> {
    checkString(text, "Model.tokenizeAsync: text");
    const opts = tokenizeOptions(options, "Model.tokenizeAsync");
    return awaitNative(() => this.native.tokenizeAsync(text, opts));
  }

  /**
   * Turns tokens back into text (invalid UTF-8, e.g. half a character, becomes U+FFFD).
   * On the calling thread: for short inputs; see {@link Model.detokenizeAsync}.
   *
   * @example
   * model.detokenize(model.tokenize("héllo 🎉", { addSpecial: false })); // "héllo 🎉"
   */
  detokenize(tokens: ArrayLike<number>, options: DetokenizeOptions = {}): string {
    const ids = checkTokens(tokens, "Model.detokenize: tokens", this.vocabSize);
    const opts = detokenizeOptions(options, "Model.detokenize");
    return callNative(() => this.native.detokenize(ids, opts)).toString("utf8");
  }

  /**
   * The raw bytes of {@link Model.detokenize}, without UTF-8 decoding.
   *
   * @example
   * const bytes = model.detokenizeBytes([id]);
   */
  detokenizeBytes(tokens: ArrayLike<number>, options: DetokenizeOptions = {}): Uint8Array {
    const ids = checkTokens(tokens, "Model.detokenizeBytes: tokens", this.vocabSize);
    const opts = detokenizeOptions(options, "Model.detokenizeBytes");
    return callNative(() => this.native.detokenize(ids, opts));
  }

  /**
   * Detokenizes on a worker thread.
   *
   * @example
   * const text = await model.detokenizeAsync(manyTokens);
   */
  async detokenizeAsync(tokens: ArrayLike<number>, options: DetokenizeOptions = {}): Promise<string> {
    const ids = checkTokens(tokens, "Model.detokenizeAsync: tokens", this.vocabSize);
    const opts = detokenizeOptions(options, "Model.detokenizeAsync");
    const bytes = await awaitNative(() => this.native.detokenizeAsync(ids, opts));
    return bytes.toString("utf8");
  }

  /**
   * Creates a generation context (KV cache) on a worker thread.
   *
   * @example
   * await using context = await model.createContext({ contextSize: 4096 });
   * for await (const { text } of context.generate({ prompt: "Once upon a time" })) process.stdout.write(text);
   */
  async createContext(options: ContextOptions = {}): Promise<Context> {
    if (this.vocabOnly)
      throw new RangeError(`Model.createContext: "${this.path}" was loaded with vocabOnly: it cannot generate`);
    const context = await Context.create(this, options);
    if (this.disposed) {
      // The model was disposed while the context was being created.
      context.dispose();
      throw disposedError(`Model "${this.path}" was disposed while its context was being created`);
    }
    this.#contexts.add(new WeakRef(context));
    return context;
  }

  /**
   * Loads a LoRA adapter GGUF for this model on a worker thread; apply it with
   * `context.setLoras([{ adapter, scale }])` or `createContext({ loras })`. It is freed with the model.
   *
   * @throws {LoraError} naming the path: ENOENT, TOOLWRIGHT_LORA_INVALID (not an adapter, another architecture,
   * tensors of another shape: llama.cpp's reason and the call that failed).
   * @example
   * import { loadModel } from "toolwright";
   * await using model = await loadModel("model.gguf");
   * const adapter = await model.loadLora("adapter.gguf");
   * await using context = await model.createContext({ loras: [{ adapter, scale: 1 }] });
   */
  async loadLora(path: string): Promise<LoraAdapter> {
    checkString(path, "Model.loadLora: path");
    if (path === "") throw new RangeError("Model.loadLora: path must not be empty");
    if (this.vocabOnly)
      throw new RangeError(`Model.loadLora: "${this.path}" was loaded with vocabOnly: it has no weights to adapt`);
    this.native;
    const adapter = await LoraAdapter.load(this, path);
    if (this.disposed) {
      adapter.dispose();
      throw disposedError(`Model "${this.path}" was disposed while its LoRA adapter was loading`);
    }
    this.#adapters.add(new WeakRef(adapter));
    return adapter;
  }

  /**
   * Embeds texts on llama.cpp's embedding path: one vector of `info.embeddingSize` floats per
   * text (with pooling "none", one such row per token, concatenated). Texts are batched; the
   * work runs on a worker thread. Calls on one model run one after another.
   *
   * @throws {RangeError} for an empty text or bad options; {@link ContextOverflowError} for a
   * text longer than `contextSize` tokens; {@link AbortError} when `signal` aborts.
   * @example
   * import { loadModel } from "toolwright";
   * const model = await loadModel("embedding-model.gguf");
   * const [a, b] = await model.embed(["a cat", "a kitten"], { pooling: "mean" });
   * const cosine = a.reduce((sum, x, i) => sum + x * b[i], 0); // vectors are normalised by default
   */
  embed(text: string, options?: EmbedOptions): Promise<Float32Array>;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  async embed(texts: string | readonly string[], options: EmbedOptions = {}): Promise<Float32Array | Float32Array[]> {
    if (this.vocabOnly) throw new RangeError(`Model.embed: "${this.path}" was loaded with vocabOnly: it cannot embed`);
    const arch = this.metadata["general.architecture"] ?? "";
    const { texts: list, plan } = planEmbed(texts, options, {
      trainContextSize: this.info.trainContextSize,
      modelPooling: this.metadata[`${arch}.pooling_type`] !== undefined,
    });
    this.#embedder ??= new Embedder(() => this.native);
    const vectors = await this.#embedder.embed(list, plan);
    return typeof texts === "string" ? vectors[0]! : vectors;
  }

  /** @internal Called by loadModel when it loaded a projector with the model. */
  attachProjector(projector: NativeProjector): void {
    this.#projector = projector;
    this.#projectorInfo = Object.freeze(projector.info());
  }

  /**
   * The model's projector (loadModel's `projector` option): what it reads and its image marker;
   * undefined when the model reads text only.
   *
   * @example
   * if (model.projector?.vision) console.log("this model reads images");
   */
  get projector(): Readonly<ProjectorInfo> | undefined {
    return this.#projectorInfo;
  }

  /**
   * Tokenizes `text` with `images` (encoded files: PNG, JPEG, BMP, GIF) in place of its markers
   * ({@link ProjectorInfo.marker}, once per image, in order), for {@link Context.generate}'s
   * `media`. A model without a projector fails with a {@link MediaError} (TOOLWRIGHT_NO_PROJECTOR),
   * an image that cannot be read with TOOLWRIGHT_MEDIA_INVALID.
   *
   * @example
   * const media = await model.tokenizeWithImages(`Describe ${model.projector!.marker}`, [await readFile("a.png")]);
   */
  async tokenizeWithImages(
    text: string,
    images: readonly Uint8Array[],
    options: TokenizeOptions = {},
  ): Promise<MediaPrompt> {
    checkString(text, "Model.tokenizeWithImages: text");
    if (!Array.isArray(images))
      throw new TypeError(`Model.tokenizeWithImages: images must be an array, got ${describe(images)}`);
    images.forEach((image, i) => {
      if (!(image instanceof Uint8Array))
        throw new TypeError(`Model.tokenizeWithImages: images[${i}] must be a Uint8Array, got ${describe(image)}`);
    });
    const opts = tokenizeOptions(options, "Model.tokenizeWithImages");
    if (!this.#native) throw disposedError(`Model "${this.path}" is disposed`);
    if (!this.#projector)
      throw new MediaError(
        `Model "${this.path}" has no projector, so it cannot read images: load it with loadModel(path, { projector })`,
        "TOOLWRIGHT_NO_PROJECTOR",
      );
    return tokenizeWithImages(this.#projector, text, images, opts);
  }

  /**
   * Scores how relevant each document is to `query` with a reranker (a model with llama.cpp's
   * rank head, e.g. a BGE reranker): one score per document, in the documents' order (higher is
   * more relevant; sort them yourself). Pairs are formatted as {@link Model.rankTokens} shows and
   * batched on a worker thread. Calls on one model run one after another.
   *
   * @throws {NotARerankerError} before anything is decoded, when the model has no rank head;
   * {@link ContextOverflowError} for a pair longer than `contextSize` tokens; {@link AbortError}
   * when `signal` aborts; TypeError/RangeError for bad arguments.
   * @example
   * import { loadModel } from "toolwright";
   * const model = await loadModel("bge-reranker-v2-m3.gguf");
   * const documents = ["A cat is a small feline.", "Paris is in France."];
   * const scores = await model.rank("what is a cat?", documents);
   * const best = documents[scores.indexOf(Math.max(...scores))];
   */
  async rank(query: string, documents: readonly string[], options: RankOptions = {}): Promise<number[]> {
    if (this.vocabOnly) throw new RangeError(`Model.rank: "${this.path}" was loaded with vocabOnly: it cannot rank`);
    const { query: q, documents: list, plan } = planRank(query, documents, options, this.info.trainContextSize);
    this.#ranker ??= new Ranker(() => this.native, this.path, this.metadata);
    return this.#ranker.rank(this, q, list, plan);
  }

  /**
   * The tokens {@link Model.rank} scores a query/document pair on, as llama.cpp's server formats
   * them: the model's rerank prompt (`tokenizer.chat_template.rerank`, `{query}` and `{document}`
   * filled in) when it has one, else BOS query EOS SEP document EOS with the special tokens the
   * vocabulary adds ([CLS] query [SEP] document for a BERT vocabulary).
   *
   * @example
   * import { loadModel } from "toolwright";
   * const model = await loadModel("bge-reranker-v2-m3.gguf");
   * console.log(model.detokenize(model.rankTokens("what is a cat?", "A cat is a small feline.")));
   */
  rankTokens(query: string, document: string): Int32Array {
    checkString(query, "Model.rankTokens: query");
    checkString(document, "Model.rankTokens: document");
    return rankPairTokens(this, query, document);
  }

  /** @internal Called by a context's dispose. */
  forgetContext(context: Context): void {
    for (const ref of this.#contexts) {
      const live = ref.deref();
      if (live === undefined || live === context) this.#contexts.delete(ref);
    }
  }

  /**
   * Frees the model and every context created from it. Idempotent. Work still running on a
   * worker thread keeps the native memory alive until it finishes.
   *
   * @example
   * model.dispose();
   */
  dispose(): void {
    if (!this.#native) return;
    for (const ref of [...this.#contexts]) ref.deref()?.dispose();
    this.#contexts.clear();
    for (const ref of this.#adapters) ref.deref()?.dispose();
    this.#adapters.clear();
    this.#embedder?.dispose();
    this.#embedder = undefined;
    this.#projector?.dispose();
    this.#projector = undefined;
    this.#ranker?.dispose();
    this.#ranker = undefined;
    registry.unregister(this);
    this.#native.dispose();
    this.#native = undefined;
  }

  /**
   * `await using model = await loadModel(...)` disposes the model at the end of the scope.
   *
   * @example
   * { await using model = await loadModel(path); }
   */
  async [Symbol.asyncDispose](): Promise<void> {
    this.dispose();
  }

  /**
   * Same as {@link Model.dispose}, for `using`.
   *
   * @example
   * { using model = await loadModel(path); }
   */
  [Symbol.dispose](): void {
    this.dispose();
  }

  #checkToken(token: unknown, name: string): void {
    if (typeof token !== "number" || !Number.isInteger(token) || token < 0 || token >= this.vocabSize) {
      throw new RangeError(`${name} must be a token id in [0, ${this.vocabSize}), got ${describe(token)}`);
    }
  }
}
