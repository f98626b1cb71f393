// Generation that does not depend on the batch a token is decoded in, on the CPU. ggml's CPU backend
// computes flash attention for a lone token by splitting the KV cache across threads, and for several
// tokens row by row (or in tiles), so the same token's logits differ in their last bits with its batch.
// Random or undertrained weights have near ties that this flips, and checked fast-forward and
// speculative decoding, which decode the tokens they check together, would then write other text than
// step-by-step decoding at temperature 0. ggml's reference flash attention computes each row the same way
// whatever the batch: batches of generated tokens take it (reference_attention.h), prompt batches keep
// the fast paths. A batch that checks a run of tokens also declines llamafile's tiled matmul
// (reference_sgemm.h). Where this build cannot mark attention alone, or the model has weights that ggml
// multiplies by panels for runs (panel_matmul.h), generated tokens take ggml's use_ref switch instead,
// which turns off every kernel that is not its reference one (slower, the same invariance).
#pragma once

#include <utility>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

namespace toolwright {

enum class KernelChoice {
  kFast,       // a prompt: every fast path
  kReference,  // generated tokens: the reference flash attention
  kExact,      // a run of tokens to check: that and no tiled matmul
};

class ReferenceKernels {
 public:
  ReferenceKernels() = default;
  ReferenceKernels(const ReferenceKernels&) = delete;
  ReferenceKernels& operator=(const ReferenceKernels&) = delete;
  ~ReferenceKernels() { Detach(); }

  // Finds the CPU backends `ctx` computes on (none found: Use() does nothing), the thread pools
  // attached to it and whether its model needs the use_ref switch.
  void Attach(llama_context* ctx, const ggml_threadpool* pool, const ggml_threadpool* pool_batch);

  // Forgets the context; call before it is freed.
  void Detach();

  // The kernels the next decodes use; cheap when already so.
  void Use(KernelChoice choice);

 private:
  void MarkPools(void (*mark)(const ggml_threadpool*, bool), bool marked);

  using SetUseRef = void (*)(ggml_backend_t, bool);
  std::vector<std::pair<ggml_backend_t, SetUseRef>> backends_;
  std::vector<const ggml_threadpool*> pools_;
  bool use_ref_ = true;  // generated tokens switch every kernel to its reference one, not attention alone
  KernelChoice choice_ = KernelChoice::kFast;
};

}  // namespace toolwright
