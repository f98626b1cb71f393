#include "grammar_cache.h"

#include <vector>

namespace toolwright::grammar {

namespace {

// Bytes of a list node, its index entry and the shared entry beyond what is counted apart.
constexpr size_t kSlotOverhead = 256;

void append_field(std::string& key, std::string_view field) {
  key += std::to_string(field.size());
  key += ':';
  key.append(field.data(), field.size());
}

// Every field length-prefixed, so no two different specs make the same key.
std::string make_key(const Vocab* vocab, std::string_view gbnf, std::string_view root,
                     const LazyOptions& lazy) {
  std::string key;
  key.reserve(gbnf.size() + root.size() + 64);
  append_field(key, std::to_string(reinterpret_cast<uintptr_t>(vocab)));
  append_field(key, root);
  key += lazy.lazy ? 'L' : 'S';
  key += 't' + std::to_string(lazy.trigger_tokens.size()) + ':';
  for (int32_t t : lazy.trigger_tokens) key += std::to_string(t) + ',';
  key += 'w' + std::to_string(lazy.trigger_words.size()) + ':';
  for (const std::string& w : lazy.trigger_words) append_field(key, w);
  key += 'p' + std::to_string(lazy.trigger_patterns.size()) + ':';
  for (const std::string& p : lazy.trigger_patterns) append_field(key, p);
  append_field(key, lazy.reasoning_end);
  append_field(key, gbnf);
  return key;
}

}  // namespace

GrammarCache& GrammarCache::global() {
  static GrammarCache* cache = new GrammarCache();  // leaked on purpose (see header)
  return *cache;
}

std::shared_ptr<const CompiledGrammar> GrammarCache::get(const std::shared_ptr<const Vocab>& vocab,
                                                         std::string_view gbnf, std::string_view root,
                                                         const LazyOptions& lazy, const CompileFn& compile,
                                                         std::string* error) {
  std::string key = make_key(vocab.get(), gbnf, root, lazy);
  size_t max_bytes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      hits_++;
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->entry;
    }
    misses_++;
    max_bytes = max_bytes_;
  }
  // Compiled outside the lock: other contexts keep compiling (and hitting) meanwhile.
  auto grammar = compile(error);
  if (!grammar) return nullptr;
  auto pool = std::make_shared<EnginePool>(grammar, vocab);
  pool->max_engine_bytes = max_bytes / 4;
  auto entry = std::make_shared<CompiledGrammar>(CompiledGrammar{pool, lazy, TriggerWatcher(lazy)});
  const size_t fixed = key.size() + grammar->memory_bytes() + kSlotOverhead;
  if (max_bytes == 0 || fixed > max_bytes / 2) {
    pool->retire();  // too big to keep (or the cache is off): this request's alone
    return entry;
  }
  pool->on_grow = [this] { trim(); };
  Dropped dropped;
  std::shared_ptr<const CompiledGrammar> result = entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      // Another thread compiled the same grammar meanwhile: share its entry (and engines).
      lru_.splice(lru_.begin(), lru_, it->second);
      result = it->second->entry;
      dropped.push_back(entry);
    } else {
      lru_.push_front(Slot{std::move(key), vocab.get(), fixed, entry});
      index_.emplace(std::string_view(lru_.front().key), lru_.begin());
      trim_locked(dropped);
    }
  }
  release(dropped);
  return result;
}

size_t GrammarCache::total_locked() const {
  size_t total = 0;
  for (const Slot& s : lru_) total += s.fixed_bytes + s.entry->pool->idle_bytes();
  return total;
}

void GrammarCache::erase_locked(std::list<Slot>::iterator it, Dropped& out) {
  out.push_back(std::move(it->entry));
  index_.erase(std::string_view(it->key));
  lru_.erase(it);
}

void GrammarCache::release(Dropped& dropped) {
  // An engine given back between the erase and here is dropped by retire() too.
  for (const auto& entry : dropped) entry->pool->retire();
  dropped.clear();
}

void GrammarCache::trim_locked(Dropped& out) {
  size_t total = total_locked();
  while (total > max_bytes_ && !lru_.empty()) {
    auto last = std::prev(lru_.end());
    total -= last->fixed_bytes + last->entry->pool->idle_bytes();
    erase_locked(last, out);
    evictions_++;
  }
}

void GrammarCache::trim() {
  Dropped dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    trim_locked(dropped);
  }
  release(dropped);
}

void GrammarCache::forget_vocab(const Vocab* vocab) {
  Dropped dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = lru_.begin(); it != lru_.end();) {
      auto next = std::next(it);
      if (it->vocab == vocab) erase_locked(it, dropped);
      it = next;
    }
  }
  release(dropped);
}

void GrammarCache::clear() {
  Dropped dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!lru_.empty()) erase_locked(lru_.begin(), dropped);
  }
  release(dropped);
}

void GrammarCache::set_max_bytes(size_t max_bytes) {
  Dropped dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    max_bytes_ = max_bytes;
    for (Slot& s : lru_) s.entry->pool->max_engine_bytes = max_bytes / 4;
    trim_locked(dropped);
  }
  release(dropped);
}

GrammarCache::Stats GrammarCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s;
  s.hits = hits_;
  s.misses = misses_;
  s.evictions = evictions_;
  s.warm_engines = EnginePool::warm_checkouts_total();
  s.entries = lru_.size();
  s.bytes = total_locked();
  s.max_bytes = max_bytes_;
  return s;
}

}  // namespace toolwright::grammar
