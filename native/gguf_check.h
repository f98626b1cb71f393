// Sanity checks on a GGUF's hyperparameters before llama.cpp loads the weights.
//
// llama.cpp validates most of a file with exceptions (which become load errors), but a few
// impossible hyperparameters (block_count 0, more than 512 layers, inconsistent expert counts, a
// NaN or negative norm epsilon) end in GGML_ASSERT, which aborts the whole process. Reading the
// header once more here turns those into ordinary errors.
#pragma once

#include <string>

#include "llama.h"

namespace toolwright {

// What the pre-load checks found about a file that passes them.
struct GgufFindings {
  // The tensor data is not at llama.cpp's 32-byte alignment (a legal general.alignment such as 8):
  // a memory-mapped load would abort on the unaligned buffer, so the file must be read instead.
  bool needs_read_load = false;
};

// Returns false and sets *reason when the file would make llama.cpp abort: impossible
// hyperparameters (skipped with vocab_only), a vocabulary llama.cpp asserts on (duplicate token
// texts, an empty token list), tokenizer keys it cannot tokenize with (gguf_tokenizer_check.h),
// tensors of types their role cannot have (integer weights, norms other than F32). Files whose
// header cannot be parsed pass (llama.cpp reports those properly).
bool CheckModelFile(const std::string& path, bool vocab_only, GgufFindings* findings, std::string* reason);

// After llama.cpp loaded the vocabulary: the invariants its tokenizer asserts on at run time
// (a BOS/EOS/SEP it must add but lacks; an SPM vocabulary without a token for every byte).
bool CheckLoadedVocab(const llama_vocab* vocab, std::string* reason);

}  // namespace toolwright
