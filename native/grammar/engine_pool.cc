#include "engine_pool.h"

#include <algorithm>
#include <atomic>

namespace toolwright::grammar {

namespace {
// Plans, slices' scratch and maps an engine keeps beyond its masks.
constexpr size_t kEngineOverhead = 16u << 10;
std::atomic<uint64_t> g_warm_checkouts{0};
}  // namespace

size_t Engine::memory_bytes() const { return npda->memory_bytes() + masks->memory_bytes() + kEngineOverhead; }

std::shared_ptr<Warmup> start_warmup(const Grammar& grammar, const Vocab& vocab, Npda& npda,
                                     MaskEngine& masks) {
  npda.initial();  // the engine's user reads it while the warm-up runs
  const Grammar* g = &grammar;
  const Vocab* v = &vocab;
  MaskEngine* m = &masks;
  return Warmup::start([g, v, m](const std::atomic<bool>& stop) {
    try {
      v->slices().prebuild_for(*g);
      if (!stop.load(std::memory_order_acquire)) m->preheat(&stop);
    } catch (...) {
      m->clear_cache();  // a mask stored halfway (out of memory) is never served
    }
  });
}

Engine& Engine::operator=(Engine&& o) noexcept {
  if (warming) warming->settle();
  npda = std::move(o.npda);
  masks = std::move(o.masks);
  warming = std::move(o.warming);
  return *this;
}

Engine::~Engine() {
  if (warming) warming->settle();  // before npda and masks are freed
}

EnginePool::EnginePool(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const Vocab> vocab)
    : grammar_(std::move(grammar)), vocab_(std::move(vocab)) {
  // One engine for the first checkout; counted before its warm-up fills it.
  Engine e = fresh_engine();
  idle_sizes_.push_back(e.memory_bytes());
  idle_bytes_ = idle_sizes_.back();
  e.warming = start_warmup(*grammar_, *vocab_, *e.npda, *e.masks);
  idle_.push_back(std::move(e));
}

Engine EnginePool::checkout() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      Engine e = std::move(idle_.back());
      idle_.pop_back();
      idle_bytes_ -= idle_sizes_.back();
      idle_sizes_.pop_back();
      g_warm_checkouts.fetch_add(1, std::memory_order_relaxed);
      return e;
    }
  }
  return fresh_engine();
}

Engine EnginePool::fresh_engine() const {
  Engine e;
  e.npda = std::make_unique<Npda>(grammar_);
  e.masks = std::make_unique<MaskEngine>(*e.npda, vocab_);
  return e;
}

void EnginePool::give_back(Engine engine) {
  if (!engine.npda || !engine.masks) return;
  if (engine.warming) engine.warming->settle();  // an engine returned unused may still be warming up
  const size_t bytes = engine.memory_bytes();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (retired_ || idle_.size() >= kMaxIdle || bytes > max_engine_bytes) return;  // dropped on return
    idle_.push_back(std::move(engine));
    idle_sizes_.push_back(bytes);
    idle_bytes_ += bytes;
  }
  if (on_grow) on_grow();
}

void EnginePool::retire() {
  std::vector<Engine> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    retired_ = true;
    dropped.swap(idle_);
    idle_sizes_.clear();
    idle_bytes_ = 0;
  }
  // Engines are freed here, outside the lock.
}

size_t EnginePool::idle_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return idle_bytes_;
}

uint64_t EnginePool::warm_checkouts_total() { return g_warm_checkouts.load(std::memory_order_relaxed); }

}  // namespace toolwright::grammar
