// Generation that does not depend on the batch a token is decoded in, on the CPU. ggml's CPU backend
// computes flash attention for a lone token by splitting the KV cache across threads, and for several
// tokens row by row (or in tiles), so the same token's logits differ in their last bits with its batch.
// Random or undertrained weights have near ties that this flips, and checked fast-forward and
// speculative decoding, which decode the tokens they check together, would then write other text than
// step-by-step decoding at temperature 0. ggml's reference kernels compute each row the same way whatever
// the batch: batches of generated tokens use them, prompt batches keep the fast paths.
#pragma once

#include <utility>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

namespace toolwright {

class ReferenceKernels {
 public:
  // Finds the CPU backends `ctx` computes on (none found: Use() does nothing).
  void Attach(llama_context* ctx);

  // Whether the next decodes use the reference kernels; cheap when it is already so.
  void Use(bool on);

 private:
  using SetUseRef = void (*)(ggml_backend_t, bool);
  std::vector<std::pair<ggml_backend_t, SetUseRef>> backends_;
  bool on_ = false;
};

}  // namespace toolwright
