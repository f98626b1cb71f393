// Which thread pools compute flash attention with ggml's reference kernel alone (reference_attention.cc).
#pragma once

struct ggml_threadpool;

namespace toolwright {

// Whether this build can (its linker wrapped ggml_compute_forward_flash_attn_ext).
bool CanReferenceAttention();

// From now on, flash attention computed on `pool` takes the reference kernel (or no longer does) while
// every other op keeps ggml's fast paths. Cheap; thread-safe; each call that marks is undone by one that
// does not.
void ReferenceAttention(const ggml_threadpool* pool, bool reference);

}  // namespace toolwright
