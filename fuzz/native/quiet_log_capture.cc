// The fuzz build of ScopedLogCapture (native/log_capture.h): the GGUF checks only open one to keep
// ggml's parse errors out of the way. The real one routes llama.cpp's logger, which this build does
// not link; the fuzz target silences ggml's logger once instead.
#include "log_capture.h"

namespace toolwright {

ScopedLogCapture::ScopedLogCapture() : previous_(nullptr) {}
ScopedLogCapture::~ScopedLogCapture() = default;
std::string ScopedLogCapture::Reason() const { return errors_.empty() ? warnings_ : errors_; }
void ScopedLogCapture::Append(bool is_error, const char* text) { (is_error ? errors_ : warnings_) += text; }

}  // namespace toolwright
