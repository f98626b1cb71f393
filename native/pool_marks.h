// A set of ggml thread pools, read by every ggml worker in a kernel (reference_sgemm.cc,
// reference_attention.cc) and changed by the context threads between decodes, so without a lock.
#pragma once

#include <array>
#include <atomic>

struct ggml_threadpool;

namespace toolwright {

class PoolMarks {
 public:
  // Whether `pool` is marked. More marked pools than slots (many contexts marking at the same moment)
  // count as an overflow, which answers yes for every pool: slower kernels, never wrong ones.
  bool Has(const ggml_threadpool* pool) const;
  // Marks `pool` (or no longer does); each Set(pool, true) is undone by one Set(pool, false).
  void Set(const ggml_threadpool* pool, bool marked);

 private:
  std::array<std::atomic<const ggml_threadpool*>, 64> slots_{};
  std::atomic<int> count_{0};
  std::atomic<int> overflow_{0};
};

}  // namespace toolwright
