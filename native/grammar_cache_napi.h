// Module functions over our grammar engine's cache of compiled grammars.
#pragma once

#include <napi.h>

namespace toolwright {

// grammarCacheStats() -> {hits, misses, evictions, warmEngines, entries, bytes, maxBytes}
Napi::Value GrammarCacheStats(const Napi::CallbackInfo& info);
// clearGrammarCache()
Napi::Value ClearGrammarCache(const Napi::CallbackInfo& info);
// setGrammarCacheLimit(maxBytes: integer >= 0; 0 turns the cache off)
Napi::Value SetGrammarCacheLimit(const Napi::CallbackInfo& info);

}  // namespace toolwright
