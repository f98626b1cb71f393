#include "warm_up.h"

namespace toolwright {

int32_t WarmUp(llama_context* ctx) {
  const llama_model* model = llama_get_model(ctx);
  if (llama_model_has_encoder(model)) return 0;
  const llama_vocab* vocab = llama_model_get_vocab(model);
  llama_token token = llama_vocab_bos(vocab);
  if (token == LLAMA_TOKEN_NULL) token = llama_vocab_eos(vocab);
  if (token == LLAMA_TOKEN_NULL) token = 0;
  const int32_t status = llama_decode(ctx, llama_batch_get_one(&token, 1));
  llama_synchronize(ctx);
  llama_memory_clear(llama_get_memory(ctx), true);
  return status;
}

}  // namespace toolwright
