// Compiled grammars reused across requests: a process-wide LRU keyed by (vocabulary, GBNF
// text, root rule, lazy trigger spec). An entry holds the immutable Grammar, the trigger
// watcher with its regexes compiled, and a pool of warm engines (engine_pool.h), so a second
// request with the same schema skips parsing and compiling and starts with the first one's
// masks. Bounded by bytes (grammars, keys and idle engines); thread-safe (several threads may
// compile, hit and give engines back at once; a grammar is compiled outside the lock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine_pool.h"
#include "grammar.h"
#include "trigger.h"
#include "vocab.h"

namespace toolwright::grammar {

// What a matcher needs from the cache; shared, immutable apart from the pool's list.
struct CompiledGrammar {
  std::shared_ptr<EnginePool> pool;  // grammar(), vocab(), warm engines
  LazyOptions lazy;
  TriggerWatcher watcher;  // copied into each matcher (the compiled regexes are shared)
};

class GrammarCache {
 public:
  static constexpr size_t kDefaultMaxBytes = 256u << 20;

  // The process's cache (never destroyed: matchers may give engines back during exit).
  static GrammarCache& global();

  // Compiles `gbnf` for `vocab` with `compile` (which returns nullptr and sets *error on a bad
  // grammar), or returns the cached result. Throws std::regex_error for a malformed trigger
  // pattern (nothing is cached then).
  using CompileFn = std::function<std::shared_ptr<const Grammar>(std::string* error)>;
  std::shared_ptr<const CompiledGrammar> get(const std::shared_ptr<const Vocab>& vocab, std::string_view gbnf,
                                             std::string_view root, const LazyOptions& lazy,
                                             const CompileFn& compile, std::string* error);

  // Drops every entry of this vocabulary (its model is being freed).
  void forget_vocab(const Vocab* vocab);
  void clear();
  // 0 turns the cache off (every request compiles, no engine is kept).
  void set_max_bytes(size_t max_bytes);

  struct Stats {
    uint64_t hits = 0, misses = 0, evictions = 0, warm_engines = 0;
    size_t entries = 0, bytes = 0, max_bytes = 0;
  };
  Stats stats() const;

 private:
  struct Slot {
    std::string key;
    const Vocab* vocab;
    size_t fixed_bytes;  // key + grammar + bookkeeping
    std::shared_ptr<const CompiledGrammar> entry;
  };
  mutable std::mutex mu_;
  std::list<Slot> lru_;                                                    // most recently used first
  std::unordered_map<std::string_view, std::list<Slot>::iterator> index_;  // views into Slot::key
  size_t max_bytes_ = kDefaultMaxBytes;
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;

  using Dropped = std::vector<std::shared_ptr<const CompiledGrammar>>;
  // Evicts least recently used entries until the total fits, into `out`.
  void trim_locked(Dropped& out);
  size_t total_locked() const;
  void erase_locked(std::list<Slot>::iterator it, Dropped& out);
  // After the lock is released: retires the dropped entries' pools (freeing their engines).
  static void release(Dropped& dropped);
  void trim();
};

}  // namespace toolwright::grammar
