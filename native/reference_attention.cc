// ggml's use_ref switch (reference_kernels.h) makes flash attention treat a lone token as a run's rows,
// which batch invariance needs; but it also turns off kernels that compute each row alone anyway (the
// fused RMS norm and multiply, the Walsh-Hadamard transform), which cost every generated token ~1% on
// small models. The addon is linked with --wrap=ggml_compute_forward_flash_attn_ext (CMakeLists.txt), so
// a pool marked here computes flash attention as use_ref would, and nothing else changes.
#include "reference_attention.h"

#include "pool_marks.h"

#if defined(TOOLWRIGHT_WRAPS_ATTENTION)
#include <type_traits>

#include "ggml-cpu-impl.h"
#include "ops.h"
#endif

namespace toolwright {
namespace {

PoolMarks g_reference;

}  // namespace

bool CanReferenceAttention() {
#if defined(TOOLWRIGHT_WRAPS_ATTENTION)
  return true;
#else
  return false;
#endif
}

void ReferenceAttention(const ggml_threadpool* pool, bool reference) {
  if (CanReferenceAttention()) g_reference.Set(pool, reference);
}

}  // namespace toolwright

#if defined(TOOLWRIGHT_WRAPS_ATTENTION)
extern "C" {

void __real_ggml_compute_forward_flash_attn_ext(const ggml_compute_params* params, ggml_tensor* dst);

void __wrap_ggml_compute_forward_flash_attn_ext(const ggml_compute_params* params, ggml_tensor* dst) {
  if (params->use_ref || !toolwright::g_reference.Has(params->threadpool)) {
    __real_ggml_compute_forward_flash_attn_ext(params, dst);
    return;
  }
  ggml_compute_params reference = *params;  // the same thread, pool and work buffer
  reference.use_ref = true;
  __real_ggml_compute_forward_flash_attn_ext(&reference, dst);
}

}  // extern "C"

// A llama.cpp whose kernel takes other arguments fails here, not at run time.
static_assert(
    std::is_same_v<decltype(&__wrap_ggml_compute_forward_flash_attn_ext),
                   decltype(&ggml_compute_forward_flash_attn_ext)>,
    "ggml_compute_forward_flash_attn_ext's signature changed: update native/reference_attention.cc");
#endif  // TOOLWRIGHT_WRAPS_ATTENTION
