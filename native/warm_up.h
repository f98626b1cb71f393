// A context's warm-up decode (ContextOptions.warm_up): its own and its draft model's.
#pragma once

#include "llama.h"

namespace toolwright {

// One token through every layer, then an empty cache, as llama-server does at startup: the weights are paged
// in (a mapped file) and the compute buffers touched here, not in the first request. Encoder-decoder models
// are left alone (their decoder needs the encoder's output). Returns llama_decode's status.
int32_t WarmUp(llama_context* ctx);

}  // namespace toolwright
