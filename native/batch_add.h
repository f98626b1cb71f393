// Appending one token to a llama_batch (the scheduler's batches and the draft model's).
#pragma once

#include <cstddef>

#include "llama.h"

namespace toolwright {

// Appends `token` at `pos` of sequence `seq` (logits for it when `logits`); returns its row.
inline int32_t BatchAdd(llama_batch& batch, llama_token token, size_t pos, llama_seq_id seq, bool logits) {
  const int32_t i = batch.n_tokens++;
  batch.token[i] = token;
  batch.pos[i] = static_cast<llama_pos>(pos);
  batch.n_seq_id[i] = 1;
  batch.seq_id[i][0] = seq;
  batch.logits[i] = logits ? 1 : 0;
  return i;
}

}  // namespace toolwright
