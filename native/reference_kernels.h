// Generation that does not depend on the batch a token is decoded in, on the CPU. ggml's CPU backend
// computes flash attention for a lone token by splitting the KV cache across threads, and for several
// tokens row by row (or in tiles), so the same token's logits differ in their last bits with its batch.
// Random or undertrained weights have near ties that this flips, and checked fast-forward and
// speculative decoding, which decode the tokens they check together, would then write other text than
// step-by-step decoding at temperature 0. ggml's reference kernels compute each row the same way whatever
// the batch: batches of generated tokens use them, prompt batches keep the fast paths. A batch that
// checks a run of tokens also declines llamafile's tiled matmul (reference_sgemm.h).
#pragma once

#include <utility>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

namespace toolwright {

enum class KernelChoice {
  kFast,       // a prompt: every fast path
  kReference,  // generated tokens: ggml's reference kernels
  kExact,      // a run of tokens to check: the reference kernels and no tiled matmul
};

class ReferenceKernels {
 public:
  ReferenceKernels() = default;
  ReferenceKernels(const ReferenceKernels&) = delete;
  ReferenceKernels& operator=(const ReferenceKernels&) = delete;
  ~ReferenceKernels() { Detach(); }

  // Finds the CPU backends `ctx` computes on (none found: Use() does nothing) and the thread pools
  // attached to it.
  void Attach(llama_context* ctx, const ggml_threadpool* pool, const ggml_threadpool* pool_batch);

  // Forgets the context; call before it is freed.
  void Detach();

  // The kernels the next decodes use; cheap when already so.
  void Use(KernelChoice choice);

 private:
  void DeclineTiled(bool decline);

  using SetUseRef = void (*)(ggml_backend_t, bool);
  std::vector<std::pair<ggml_backend_t, SetUseRef>> backends_;
  std::vector<const ggml_threadpool*> pools_;
  KernelChoice choice_ = KernelChoice::kFast;
};

}  // namespace toolwright
