// llamafile's tiled matmul (ggml-cpu's llamafile/sgemm.cpp) takes every matmul of two or more columns;
// a lone column goes to ggml's dot-product kernel, which sums each product in another order. A token's
// logits then depend on whether it is decoded alone or in a run (for example the attention over the KV
// cache without flash attention, or F16 weights), and checked fast-forward or speculative decoding would
// flip near ties that step-by-step decoding does not. ggml's use_ref switch (reference_kernels.h) does
// not reach that dispatch, so the addon is linked with --wrap=llamafile_sgemm (CMakeLists.txt) and the
// tiled path is declined for decodes that check a run, on the thread pools marked here: ggml then runs
// its dot product for each column, as for a lone one. Other batches of generated tokens (one token of
// each of several sequences) keep the tiled path, which is a third faster there.
#include "reference_sgemm.h"

#include "pool_marks.h"

#if defined(TOOLWRIGHT_WRAPS_SGEMM)
#include <cstdint>
#include <type_traits>

#include "ggml-cpu-impl.h"
#include "llamafile/sgemm.h"
#endif

namespace toolwright {
namespace {

PoolMarks g_declining;

}  // namespace

bool CanDeclineTiledMatmul() {
#if defined(TOOLWRIGHT_WRAPS_SGEMM)
  return true;
#else
  return false;
#endif
}

void DeclineTiledMatmul(const ggml_threadpool* pool, bool decline) {
  if (CanDeclineTiledMatmul()) g_declining.Set(pool, decline);
}

}  // namespace toolwright

#if defined(TOOLWRIGHT_WRAPS_SGEMM)
extern "C" {

bool __real_llamafile_sgemm(const ggml_compute_params* params, int64_t m, int64_t n, int64_t k, const void* a,
                            int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc, int a_type,
                            int b_type, int c_type);

// Declining (false) is an answer llamafile_sgemm gives for any matmul it has no kernel for: ggml-cpu then
// computes it itself.
bool __wrap_llamafile_sgemm(const ggml_compute_params* params, int64_t m, int64_t n, int64_t k, const void* a,
                            int64_t lda, const void* b, int64_t ldb, void* c, int64_t ldc, int a_type,
                            int b_type, int c_type) {
  if (toolwright::g_declining.Has(params->threadpool)) return false;
  return __real_llamafile_sgemm(params, m, n, k, a, lda, b, ldb, c, ldc, a_type, b_type, c_type);
}

}  // extern "C"

// A llama.cpp whose sgemm takes other arguments fails here, not at run time.
static_assert(std::is_same_v<decltype(&__wrap_llamafile_sgemm), decltype(&llamafile_sgemm)>,
              "llamafile_sgemm's signature changed: update native/reference_sgemm.cc");
#endif  // TOOLWRIGHT_WRAPS_SGEMM
