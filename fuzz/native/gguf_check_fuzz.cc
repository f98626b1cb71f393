// libFuzzer target: the pre-load GGUF checks (native/gguf_check.*, gguf_tokenizer_check.*) over
// ggml's GGUF reader. The input is a whole GGUF file; CheckModelFile reads it from a path, so each
// input is written to one scratch file first. Both modes run: full (hyperparameters, tensor types)
// and vocab_only. A refusal must name its reason.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ggml.h"
#include "gguf_check.h"

namespace {

std::string ScratchPath() {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/toolwright-gguf-fuzz-" + std::to_string(getpid()) +
         ".gguf";
}

void Quiet(ggml_log_level, const char*, void*) {}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ggml_log_set(Quiet, nullptr);  // ggml logs every malformed header otherwise
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = ScratchPath();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  for (bool vocab_only : {false, true}) {
    toolwright::GgufFindings findings;
    std::string reason;
    if (!toolwright::CheckModelFile(path, vocab_only, &findings, &reason) && reason.empty()) {
      std::fprintf(stderr, "a refused file without a reason\n");
      std::abort();
    }
  }
  return 0;
}
