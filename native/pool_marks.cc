#include "pool_marks.h"

namespace toolwright {

bool PoolMarks::Has(const ggml_threadpool* pool) const {
  if (count_.load(std::memory_order_acquire) == 0) return false;
  if (overflow_.load(std::memory_order_acquire) > 0) return true;
  for (const auto& slot : slots_) {
    if (slot.load(std::memory_order_acquire) == pool) return true;
  }
  return false;
}

void PoolMarks::Set(const ggml_threadpool* pool, bool marked) {
  if (pool == nullptr) return;
  if (marked) {
    count_.fetch_add(1, std::memory_order_acq_rel);
    for (auto& slot : slots_) {
      const ggml_threadpool* empty = nullptr;
      if (slot.compare_exchange_strong(empty, pool, std::memory_order_acq_rel)) return;
    }
    overflow_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  for (auto& slot : slots_) {
    const ggml_threadpool* expected = pool;
    if (slot.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel)) {
      count_.fetch_sub(1, std::memory_order_acq_rel);
      return;
    }
  }
  overflow_.fetch_sub(1, std::memory_order_acq_rel);
  count_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace toolwright
