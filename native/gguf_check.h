// Sanity checks on a GGUF's hyperparameters before llama.cpp loads the weights.
//
// llama.cpp validates most of a file with exceptions (which become load errors), but a few
// impossible hyperparameters (block_count 0, more than 512 layers, inconsistent expert counts, a
// NaN or negative norm epsilon) end in GGML_ASSERT, which aborts the whole process. Reading the
// header once more here turns those into ordinary errors.
#pragma once

#include <string>

namespace toolwright {

// Returns false and sets *reason when the file's metadata would make llama.cpp abort.
// Files whose header cannot be parsed pass (llama.cpp reports those properly).
bool CheckHyperparameters(const std::string& path, std::string* reason);

}  // namespace toolwright
