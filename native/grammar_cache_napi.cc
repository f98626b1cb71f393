#include "grammar_cache_napi.h"

#include "grammar_toolwright.h"
#include "napi_args.h"

namespace toolwright {

Napi::Value GrammarCacheStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ToolwrightGrammarCacheStats s = GetToolwrightGrammarCacheStats();
  Napi::Object o = Napi::Object::New(env);
  o.Set("hits", Napi::Number::New(env, static_cast<double>(s.hits)));
  o.Set("misses", Napi::Number::New(env, static_cast<double>(s.misses)));
  o.Set("evictions", Napi::Number::New(env, static_cast<double>(s.evictions)));
  o.Set("warmEngines", Napi::Number::New(env, static_cast<double>(s.warm_engines)));
  o.Set("entries", Napi::Number::New(env, static_cast<double>(s.entries)));
  o.Set("bytes", Napi::Number::New(env, static_cast<double>(s.bytes)));
  o.Set("maxBytes", Napi::Number::New(env, static_cast<double>(s.max_bytes)));
  return o;
}

Napi::Value ClearGrammarCache(const Napi::CallbackInfo& info) {
  ClearToolwrightGrammarCache();
  return info.Env().Undefined();
}

Napi::Value SetGrammarCacheLimit(const Napi::CallbackInfo& info) {
  // Up to 2^53 - 1: every byte count a JS number holds exactly.
  const int64_t max_bytes =
      args::Integer(info, 0, "setGrammarCacheLimit", "maxBytes", 0, (int64_t{1} << 53) - 1);
  SetToolwrightGrammarCacheLimit(static_cast<uint64_t>(max_bytes));
  return info.Env().Undefined();
}

}  // namespace toolwright
