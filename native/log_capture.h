// Routes llama.cpp / ggml log output.
//
// llama.cpp reports most failures only through its logger (e.g. a NULL model plus
// "failed to open x: No such file"), so workers capture the errors logged on their own
// thread and put them into the JS error message. Everything else stays quiet unless
// TOOLWRIGHT_DEBUG=1, which lets all log output through to stderr.
#pragma once

#include <string>

#include "llama.h"

namespace toolwright {

// Installs the log callback once per process (idempotent).
void InstallLogHandler();

// While alive, collects the ERROR/WARN messages llama.cpp logs on the current thread.
class ScopedLogCapture {
 public:
  ScopedLogCapture();
  ~ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  // The captured errors (or warnings when there were no errors), one line, trimmed;
  // empty when llama.cpp logged nothing useful.
  std::string Reason() const;

  // Internal: called by the log handler.
  void Append(bool is_error, const char* text);

 private:
  std::string errors_;
  std::string warnings_;
  ScopedLogCapture* previous_;
};

// llama_init_from_model with llama.cpp's log captured: the new context, or nullptr with `reason`
// set to why (what llama.cpp logged, or "llama.cpp gave no reason").
llama_context* InitContext(llama_model* model, const llama_context_params& params, std::string* reason);

}  // namespace toolwright
