// The fuzz build of the GGUF checks links ggml-base only, not llama.cpp. gguf_check.cc also holds
// CheckLoadedVocab, which reads a loaded llama_vocab; the harness never calls it, so the vocabulary
// calls it makes end the process here instead of being linked.
#include <cstdio>
#include <cstdlib>

#include "llama.h"

namespace {
[[noreturn]] void NotLinked(const char* name) {
  std::fprintf(stderr, "%s: llama.cpp is not linked into the fuzz build\n", name);
  std::abort();
}
}  // namespace

extern "C" {
enum llama_vocab_type llama_vocab_type(const struct llama_vocab*) { NotLinked(__func__); }
int32_t llama_vocab_n_tokens(const struct llama_vocab*) { NotLinked(__func__); }
const char* llama_vocab_get_text(const struct llama_vocab*, llama_token) { NotLinked(__func__); }
llama_token llama_vocab_bos(const struct llama_vocab*) { NotLinked(__func__); }
llama_token llama_vocab_eos(const struct llama_vocab*) { NotLinked(__func__); }
llama_token llama_vocab_sep(const struct llama_vocab*) { NotLinked(__func__); }
bool llama_vocab_get_add_bos(const struct llama_vocab*) { NotLinked(__func__); }
bool llama_vocab_get_add_eos(const struct llama_vocab*) { NotLinked(__func__); }
bool llama_vocab_get_add_sep(const struct llama_vocab*) { NotLinked(__func__); }
}
