/**
 * The native grammar engine's cache of compiled grammars. A grammar used again on the same model
 * (same GBNF, root and lazy triggers: a tool set or response schema sent again) skips parsing and
 * compiling, and its generation starts with the masks the previous one computed. Bounded by bytes
 * (least recently used first out); a model's entries go when the model is disposed.
 */
import { loadNative } from "./binding.js";
import { optInteger } from "../validate/index.js";

/** Counters and size of the compiled-grammar cache ({@link grammarCacheStats}). */
export interface GrammarCacheStats {
  /** Grammars found compiled. */
  hits: number;
  /** Grammars compiled (not in the cache, or the cache is off). */
  misses: number;
  /** Entries dropped to stay within `maxBytes`. */
  evictions: number;
  /** Generations that started with a warm automaton and mask cache from an earlier one. */
  warmEngines: number;
  /** Grammars held now. */
  entries: number;
  /** Approximate bytes held now (grammars and idle warm engines). */
  bytes: number;
  /** The budget (`setGrammarCacheLimit`); 0 when the cache is off. */
  maxBytes: number;
}

/**
 * Counters of the compiled-grammar cache since the process started (all models).
 *
 * @example
 * import { grammarCacheStats } from "toolwright";
 * const { hits, misses, bytes } = grammarCacheStats();
 */
export function grammarCacheStats(): GrammarCacheStats {
  const s = loadNative().grammarCacheStats();
  return {
    hits: s.hits,
    misses: s.misses,
    evictions: s.evictions,
    warmEngines: s.warmEngines,
    entries: s.entries,
    bytes: s.bytes,
    maxBytes: s.maxBytes,
  };
}

/**
 * Drops every compiled grammar (generations running keep theirs). Counters are kept.
 *
 * @example
 * import { clearGrammarCache } from "toolwright";
 * clearGrammarCache();
 */
export function clearGrammarCache(): void {
  loadNative().clearGrammarCache();
}

/**
 * Sets the cache's budget in bytes (default 256 MiB), evicting at once what no longer fits; 0
 * turns the cache off (every generation compiles its grammar).
 *
 * @example
 * import { setGrammarCacheLimit } from "toolwright";
 * setGrammarCacheLimit(64 * 1024 * 1024);
 */
export function setGrammarCacheLimit(maxBytes: number): void {
  if (maxBytes === undefined) throw new TypeError("setGrammarCacheLimit: maxBytes must be an integer, got undefined");
  const bytes = optInteger(maxBytes, "setGrammarCacheLimit: maxBytes", 0, Number.MAX_SAFE_INTEGER) as number;
  loadNative().setGrammarCacheLimit(bytes);
}
