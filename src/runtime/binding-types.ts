/**
 * The native addon's interface, as TypeScript sees it: the classes and functions `toolwright.node`
 * exports (native/addon.cc registers them), with the plain objects they take and return. The
 * addon is loaded by binding.ts.
 */
import type { NativeEmbeddingContextClass, NativeMeasureContextMemory } from "./binding-embedding.js";
import type { NativeMediaPrompt, NativeProjectorClass } from "./binding-projector.js";
import type { SpecialTokens } from "./model-types.js";

/** Options of `Model.load` (validated and defaulted by the TypeScript layer). */
export interface NativeLoadOptions {
  vocabOnly?: boolean;
  /** -1: all layers. */
  gpuLayers?: number;
  /** "auto", "none" or a backend name ("cuda", "metal", "vulkan", ...). */
  gpu?: string;
  useMmap?: boolean;
  /** "host:port" of RPC servers whose devices come first in the model's device list. */
  rpcServers?: string[];
}

/** `Model.info()` of the native module. */
export interface NativeModelInfo {
  path: string;
  description: string;
  vocabOnly: boolean;
  vocabSize: number;
  /** llama_vocab_type: 1 SPM, 2 BPE, 3 WPM, 4 UGM, 5 RWKV, 6 PLaMo-2. */
  vocabType: number;
  trainContextSize: number;
  embeddingSize: number;
  layerCount: number;
  sizeBytes: number;
  parameterCount: number;
  hasEncoder: boolean;
  hasDecoder: boolean;
  isRecurrent: boolean;
  /** The GPU devices the weights were placed on (empty: CPU only). */
  devices: NativeDevice[];
  /** Layers offloaded to those devices (the output layer counts as one). */
  gpuLayers: number;
}

/** A compute device of one of the build's ggml backends. */
export interface NativeDevice {
  name: string;
  description: string;
  backend: string;
  type: "cpu" | "gpu" | "igpu" | "accel" | "other";
  memoryFree: number;
  memoryTotal: number;
}

/** Special token ids and insertion flags, as the addon returns them: the public shape, {@link SpecialTokens}. */
export type NativeSpecialTokens = SpecialTokens;

export interface NativeTokenizeOptions {
  addSpecial?: boolean;
  parseSpecial?: boolean;
}

export interface NativeDetokenizeOptions {
  removeSpecial?: boolean;
  unparseSpecial?: boolean;
}

/** Token ids as the addon accepts them. */
export type NativeTokens = Int32Array | Uint32Array | readonly number[];

export interface NativeVocabulary {
  /** All token pieces, concatenated. */
  bytes: Buffer;
  /** vocabSize + 1 offsets into `bytes`: token i is bytes[offsets[i], offsets[i+1]). */
  offsets: Uint32Array;
  /** llama_token_attr bit flags per token. */
  attributes: Uint32Array;
}

export interface NativeModel {
  info(): NativeModelInfo;
  metadata(): Record<string, string>;
  chatTemplate(name?: string | null): string | null;
  specialTokens(): NativeSpecialTokens;
  tokenPiece(token: number): Buffer;
  tokenAttributes(token: number): number;
  isEog(token: number): boolean;
  vocabulary(): Promise<NativeVocabulary>;
  tokenize(text: string, options?: NativeTokenizeOptions): Int32Array;
  tokenizeAsync(text: string, options?: NativeTokenizeOptions): Promise<Int32Array>;
  detokenize(tokens: NativeTokens, options?: NativeDetokenizeOptions): Buffer;
  detokenizeAsync(tokens: NativeTokens, options?: NativeDetokenizeOptions): Promise<Buffer>;
  dispose(): void;
  readonly disposed: boolean;
}

export interface NativeModelClass {
  load(
    path: string,
    options: NativeLoadOptions,
    onProgress?: (progress: number) => void,
  ): { promise: Promise<NativeModel>; cancel(): void };
}

export interface NativeContextOptions {
  contextSize?: number;
  batchSize?: number;
  ubatchSize?: number;
  threads?: number;
  threadsBatch?: number;
  /** Busy-wait level of idle pool threads, 0 to 100 (ggml_threadpool_params.poll). */
  poll?: number;
  /** Decode one token at creation and clear the cache (default false). */
  warmUp?: boolean;
  /** Sequences, each generation on one (> 1: separate caches; decode/clear/truncate/tokens throw). */
  sequences?: number;
  /**
   * Speculative decoding: prompt lookup, a draft model with the model's vocabulary (TOOLWRIGHT_DRAFT_MISMATCH
   * otherwise), most tokens drafted per pass (1 to 64, default 8).
   */
  speculative?: { lookup?: boolean; draft?: NativeModel; maxDraft?: number; minProbability?: number };
  /** Flash attention on or off; absent: llama.cpp's "auto". */
  flashAttention?: boolean;
}

export interface NativeContextInfo {
  contextSize: number;
  batchSize: number;
  ubatchSize: number;
  threads: number;
  threadsBatch: number;
  sequences: number;
  /** Whether speculative decoding is on. */
  speculative: boolean;
}

/** What a submitted sequence reports, in order: one start, its tokens, one end (see {@link NativeSequenceListener}). */
export type NativeSequenceEvent =
  /**
   * The request took slot `sequence`: `reused` prompt tokens were in its cache (`shifted` of them kept by a
   * context shift), `evaluated` are decoded.
   */
  | { type: "start"; sequence: number; reused: number; shifted: number; evaluated: number }
  /**
   * `piece`: the token's text where it is ASCII and follows no unfinished character, else its bytes (UTF-8, for
   * a streaming decoder: a character may span tokens); `passes`: decode passes the request took part in so far;
   * `forced`: appended without sampling (fast-forward); `drafted`/`accepted`: drafted tokens decoded for it so
   * far, and those its picks agreed with; `droppedForced`: checked forced tokens decoded for it so far and dropped
   * (see fastForward).
   */
  | {
      type: "token";
      token: number;
      piece: string | Uint8Array;
      eog: boolean;
      passes: number;
      forced: boolean;
      drafted: number;
      accepted: number;
      droppedForced: number;
    }
  /** Ended with a stop reason ("eog", "maxTokens", "contextFull", "abort"), or failed with a code and message. */
  | { type: "end"; reason?: "eog" | "maxTokens" | "contextFull" | "abort"; code?: string; message?: string };

/**
 * Called with a request's events. The start and end come as event objects; a token (sent once per token, so
 * its object is made in JS) comes as the fields of its event, in order: `sequenceEventOf` makes the object.
 */
export type NativeSequenceListener = (
  event: NativeSequenceEvent | number,
  piece?: string | Uint8Array,
  eog?: boolean,
  passes?: number,
  forced?: boolean,
  drafted?: number,
  accepted?: number,
  droppedForced?: number,
) => void;

export interface NativeSubmitOptions {
  /** Most tokens to generate (-1 or absent: until the context is full; 0: evaluate the prompt only). */
  maxTokens?: number;
  /** Reuse the slot's cached prefix (default true). */
  reusePrefix?: boolean;
  /** A prompt that is the slot's cache with one span removed keeps the cached rest by shifting it (default false). */
  shift?: boolean;
  /**
   * Tokens the generation may run ahead of its reader ({@link NativeContext.consumed}) before it pauses (default 16; 0:
   * no limit).
   */
  readAhead?: number;
  /**
   * After the first token, token events are handed over this many at a time (default 1; at most `readAhead`
   * and 64): the main thread wakes once per group.
   */
  groupTokens?: number;
  /** The images of `tokens` (which start with its tokens, placeholders included). */
  media?: NativeMediaPrompt;
}

export interface NativeContext {
  info(): NativeContextInfo;
  /** Resolves with the number of tokens in the KV cache afterwards. */
  decode(tokens: NativeTokens): Promise<number>;
  /** Ends every submitted request (reason "abort"). */
  cancel(): void;
  /**
   * Queues a generation on a free sequence (or until one is free); returns its id. `onEvent` is
   * called on the main thread for each event and must not throw.
   */
  submit(
    sampler: NativeSampler,
    tokens: NativeTokens,
    options: NativeSubmitOptions,
    onEvent: NativeSequenceListener,
  ): number;
  /**
   * That request ends with reason "abort"; the others go on (a paused one too). Its sequence keeps
   * the prompt and the tokens its reader took ({@link NativeContext.consumed}).
   */
  cancelRequest(id: number): void;
  /** Request `id` ended before its reader, which took `taken` tokens and stopped: drops the rest from its sequence. */
  trimUntaken(id: number, taken: number): boolean;
  /**
   * The reader of request `id` has taken `tokens` token events so far. A request
   * runs at most `readAhead` tokens ahead of its reader, then pauses (its sequence left out of the
   * batches, its thread-safe function unreferenced) until this says the reader took more.
   */
  consumed(id: number, tokens: number): void;
  /**
   * The LoRA adapters every later decode adds, with their scales (empty: the base weights). Rejects with
   * TOOLWRIGHT_CONTEXT_BUSY while a generation runs or waits; a changed set empties every sequence's cache.
   */
  setLoras(loras: readonly { adapter: NativeLoraAdapter; scale: number }[]): Promise<void>;
  /** One sequence's KV state and tokens (-1: the sequence of the latest generation). */
  saveSequence(sequence: number): Promise<{ sequence: number; tokens: Int32Array; data: Buffer }>;
  /**
   * Replaces a sequence (-1: the free one least recently used) with a saved state whose tokens become its
   * history; resolves with the sequence. Rejects with TOOLWRIGHT_STATE_INVALID or TOOLWRIGHT_STATE_MISMATCH.
   */
  restoreSequence(sequence: number, tokens: NativeTokens, data: Uint8Array): Promise<number>;
  clear(): void;
  truncate(keep: number): boolean;
  tokens(): Int32Array;
  readonly size: number;
  /**
   * decodeThreads: OS threads that have decoded for this context (1: all on the context's own);
   * requestsRunning / requestsPaused: submitted requests not ended yet, and
   * those of them paused for their reader after the last batch.
   */
  stats(): {
    evaluatedTokens: number;
    sampledTokens: number;
    /** Tokens appended without sampling because the grammar forced them (fast-forward). */
    forcedTokens: number;
    /** Drafted tokens decoded for checking (speculative decoding), and those the picks agreed with. */
    draftedTokens: number;
    acceptedDraftTokens: number;
    decodeThreads: number;
    requestsRunning: number;
    requestsPaused: number;
  };
  dispose(): void;
  readonly disposed: boolean;
}

/** A LoRA adapter loaded for one model; a context applying it keeps it alive after dispose(). */
export interface NativeLoraAdapter {
  info(): { path: string; alpha: number };
  dispose(): void;
  readonly disposed: boolean;
}

export interface NativeLoraAdapterClass {
  /** Rejects with ENOENT, EISDIR, TOOLWRIGHT_FILE_ERROR or TOOLWRIGHT_LORA_INVALID (llama.cpp's reason). */
  load(model: NativeModel, path: string): Promise<NativeLoraAdapter>;
}

export interface NativeContextClass {
  create(model: NativeModel, options: NativeContextOptions): Promise<NativeContext>;
}

export interface NativeSamplerOptions {
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repeatPenalty?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  penaltyLastN?: number;
  seed?: number;
  greedy?: boolean;
  /** Append the tokens a grammar forces without sampling them (default true); "checked": keep those the model picks. */
  fastForward?: boolean | "checked";
}

export interface NativeGrammarSpec {
  /** "toolwright" (default when built in), "llama" (llama.cpp's GBNF sampler) or another registered engine. */
  engine?: string;
  gbnf: string;
  root?: string;
  lazy?: boolean;
  triggerPatterns?: string[];
  triggerTokens?: NativeTokens;
}

export interface NativeSampler {
  setGrammar(grammar: NativeGrammarSpec | null): void;
  reset(): void;
  accept(tokens: NativeTokens | number): void;
  describe(): { chain: string[]; grammar: string | null };
  dispose(): void;
  readonly disposed: boolean;
}

export interface NativeSamplerClass {
  new (model: NativeModel, options: NativeSamplerOptions): NativeSampler;
}

export interface NativeSystemInfo {
  llamaVersion: string;
  system: string;
  supportsMmap: boolean;
  supportsGpuOffload: boolean;
  devices: NativeDevice[];
  grammarEngines: string[];
  /** ggml backends compiled in, with or without devices ("CPU", "Vulkan", "RPC", ...). */
  backends?: string[];
  /** The RPC protocol version, or null when the build has no RPC backend. */
  rpc?: { major: number; minor: number; patch: number } | null;
}

/** Options of the native RPC server. */
export interface NativeRpcServerOptions {
  threads?: number;
}

/** The native module's exports. */
export interface NativeBinding {
  Model: NativeModelClass;
  Context: NativeContextClass;
  LoraAdapter: NativeLoraAdapterClass;
  Sampler: NativeSamplerClass;
  EmbeddingContext: NativeEmbeddingContextClass;
  Projector: NativeProjectorClass;
  measureContextMemory: NativeMeasureContextMemory;
  systemInfo(): NativeSystemInfo;
  /** Serves this machine's devices over RPC on a thread until the process ends (absent in old builds). */
  startRpcServer?(host: string, port: number, options: NativeRpcServerOptions, onExit: (message: string) => void): void;
  /** "host:port" of the RPC servers live models of this process are connected to (absent in old builds). */
  rpcEndpointsInUse?(): string[];
  /**
   * Aborts every context's work and joins every context thread, disposed contexts' included (one
   * may still be freeing its context after a dispose() during a round). Called on the
   * process's "exit" event: process.exit() runs no native cleanup hook, and a context thread
   * still running llama.cpp code while the process runs its exit handlers can crash it.
   */
  stopContexts(): void;
  /** Counters of our grammar engine's compiled-grammar cache (zeros when the engine is not built in). */
  grammarCacheStats(): NativeGrammarCacheStats;
  clearGrammarCache(): void;
  /** Bytes the cache may hold; 0 turns it off. */
  setGrammarCacheLimit(maxBytes: number): void;
}

export interface NativeGrammarCacheStats {
  hits: number;
  misses: number;
  evictions: number;
  warmEngines: number;
  entries: number;
  bytes: number;
  maxBytes: number;
}
