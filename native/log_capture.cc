#include "log_capture.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "llama.h"
#include "mtmd-helper.h"

namespace toolwright {
namespace {

thread_local ScopedLogCapture* tl_capture = nullptr;
// A CONT message continues the previous one: remember what that one was, per thread.
thread_local ggml_log_level tl_last_level = GGML_LOG_LEVEL_NONE;

bool DebugEnabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("TOOLWRIGHT_DEBUG");
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
  }();
  return enabled;
}

void OnLog(ggml_log_level level, const char* text, void* /*user_data*/) {
  if (text == nullptr) return;
  if (level != GGML_LOG_LEVEL_CONT) tl_last_level = level;
  const ggml_log_level effective = level == GGML_LOG_LEVEL_CONT ? tl_last_level : level;
  if (DebugEnabled()) {
    std::fputs(text, stderr);
    std::fflush(stderr);
  }
  if (tl_capture != nullptr && (effective == GGML_LOG_LEVEL_ERROR || effective == GGML_LOG_LEVEL_WARN)) {
    tl_capture->Append(effective == GGML_LOG_LEVEL_ERROR, text);
  }
}

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Removes the "function_name: " prefixes llama.cpp puts on its messages.
std::string StripPrefixes(std::string line) {
  for (;;) {
    size_t i = 0;
    while (i < line.size() && IsIdentifierChar(line[i])) i++;
    if (i > 0 && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ') {
      line.erase(0, i + 2);
      continue;
    }
    static const std::string kErrorLoading = "error loading model: ";
    if (line.compare(0, kErrorLoading.size(), kErrorLoading) == 0) {
      line.erase(0, kErrorLoading.size());
      continue;
    }
    return line;
  }
}

std::string Trim(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) b++;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) e--;
  return s.substr(b, e - b);
}

// One sentence from the captured lines: prefixes removed, the generic "failed to load
// model" lines dropped (the caller says that already), duplicates dropped.
std::string CleanReason(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = StripPrefixes(Trim(text.substr(start, end - start)));
    start = end + 1;
    if (line.empty() || line.compare(0, 20, "failed to load model") == 0) continue;
    if (std::find(parts.begin(), parts.end(), line) == parts.end()) parts.push_back(line);
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

}  // namespace

void InstallLogHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    llama_log_set(OnLog, nullptr);
    mtmd_helper_log_set(OnLog, nullptr);  // the projector library (images) logs through its own hook
  });
}

ScopedLogCapture::ScopedLogCapture() : previous_(tl_capture) { tl_capture = this; }

ScopedLogCapture::~ScopedLogCapture() { tl_capture = previous_; }

void ScopedLogCapture::Append(bool is_error, const char* text) {
  std::string& target = is_error ? errors_ : warnings_;
  // Bounded: a pathological file must not make the message huge.
  if (target.size() < 4096) target += text;
}

std::string ScopedLogCapture::Reason() const { return CleanReason(errors_.empty() ? warnings_ : errors_); }

llama_context* InitContext(llama_model* model, const llama_context_params& params, std::string* reason) {
  ScopedLogCapture capture;
  llama_context* ctx = llama_init_from_model(model, params);
  if (ctx == nullptr) {
    *reason = capture.Reason();
    if (reason->empty()) *reason = "llama.cpp gave no reason";
  }
  return ctx;
}

}  // namespace toolwright
