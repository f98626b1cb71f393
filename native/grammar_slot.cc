#include "grammar_slot.h"

#include <cstdio>
#include <exception>
#include <map>
#include <mutex>

#include "grammar_toolwright.h"
#include "log_capture.h"

#ifndef _WIN32
#include <unistd.h>
#endif

namespace toolwright {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, GrammarEngineFactory>& Registry();

// llama.cpp's grammar parser prints its syntax errors straight to stderr (not to the log), so
// they are caught in a temporary file for the duration of the call (POSIX; elsewhere the
// message is only "failed to parse grammar"). A file, not a pipe: a long grammar echoed
// back must not fill a pipe and block.
class ScopedStderrCapture {
 public:
  ScopedStderrCapture() {
#ifndef _WIN32
    std::fflush(stderr);
    file_ = std::tmpfile();
    if (file_ == nullptr) return;
    saved_ = dup(STDERR_FILENO);
    if (saved_ < 0 || dup2(fileno(file_), STDERR_FILENO) < 0) Restore();
#endif
  }
  ~ScopedStderrCapture() {
    Restore();
#ifndef _WIN32
    if (file_ != nullptr) std::fclose(file_);
#endif
  }
  ScopedStderrCapture(const ScopedStderrCapture&) = delete;
  ScopedStderrCapture& operator=(const ScopedStderrCapture&) = delete;

  // What was written to stderr so far (ends the capture).
  std::string Take() {
    std::string out;
#ifndef _WIN32
    if (file_ == nullptr) return out;
    std::fflush(stderr);
    Restore();
    std::rewind(file_);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), file_)) > 0 && out.size() < (1 << 20)) out.append(buf, n);
#endif
    return out;
  }

 private:
  void Restore() {
#ifndef _WIN32
    if (saved_ >= 0) {
      std::fflush(stderr);
      dup2(saved_, STDERR_FILENO);
      close(saved_);
      saved_ = -1;
    }
#endif
  }
#ifndef _WIN32
  std::FILE* file_ = nullptr;
  int saved_ = -1;
#endif
};

// The "error parsing grammar: <why>" part of llama.cpp's stderr output.
std::string ParseErrorFrom(const std::string& output) {
  static const std::string kMarker = "error parsing grammar: ";
  const size_t at = output.find(kMarker);
  if (at == std::string::npos) return "";
  const size_t start = at + kMarker.size();
  const size_t end = output.find('\n', start);
  return output.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// llama.cpp's GBNF sampler. It reports other errors only through its log.
llama_sampler* CreateLlamaGrammar(const llama_vocab* vocab, const GrammarSpec& spec, std::string* error) {
  ScopedLogCapture capture;
  ScopedStderrCapture stderr_capture;
  llama_sampler* sampler = nullptr;
  if (spec.lazy) {
    std::vector<const char*> patterns;
    patterns.reserve(spec.trigger_patterns.size());
    for (const std::string& p : spec.trigger_patterns) patterns.push_back(p.c_str());
    sampler = llama_sampler_init_grammar_lazy_patterns(
        vocab, spec.gbnf.c_str(), spec.root.c_str(), patterns.data(), patterns.size(),
        spec.trigger_tokens.data(), spec.trigger_tokens.size());
  } else {
    sampler = llama_sampler_init_grammar(vocab, spec.gbnf.c_str(), spec.root.c_str());
  }
  const std::string syntax_error = ParseErrorFrom(stderr_capture.Take());
  if (sampler == nullptr) {
    std::string reason = syntax_error.empty() ? capture.Reason() : syntax_error;
    *error = (reason.empty() ? std::string("the grammar could not be parsed") : reason) +
             (spec.lazy ? " (llama_sampler_init_grammar_lazy_patterns failed)"
                        : " (llama_sampler_init_grammar failed)");
  }
  return sampler;
}

std::map<std::string, GrammarEngineFactory>& Registry() {
  static std::map<std::string, GrammarEngineFactory> registry = {{"llama", &CreateLlamaGrammar}};
  return registry;
}

}  // namespace

void RegisterGrammarEngine(const std::string& name, GrammarEngineFactory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry()[name] = factory;
}

std::vector<std::string> GrammarEngineNames() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::vector<std::string> names;
  for (const auto& entry : Registry()) names.push_back(entry.first);
  return names;
}

llama_sampler* CreateGrammarSampler(const llama_vocab* vocab, const GrammarSpec& spec, std::string* error) {
  GrammarEngineFactory factory = nullptr;
  std::string engine = spec.engine;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    if (engine.empty()) engine = Registry().count("toolwright") != 0 ? "toolwright" : "llama";
    auto it = Registry().find(engine);
    if (it != Registry().end()) factory = it->second;
  }
  if (factory == nullptr) {
    std::string known;
    for (const std::string& name : GrammarEngineNames()) known += (known.empty() ? "" : ", ") + name;
    *error = "unknown grammar engine \"" + engine + "\" (available: " + known + ")";
    return nullptr;
  }
  try {
    // Both engines: nothing hostile reaches a compiler that would crash or never finish on it.
    if (!PreflightGrammar(vocab, spec, engine, error)) return nullptr;
    return factory(vocab, spec, error);
  } catch (const std::exception& e) {
    // e.g. an invalid trigger pattern (std::regex_error) inside the engine.
    *error = std::string("grammar engine \"") + engine + "\" failed: " + e.what();
    return nullptr;
  }
}

}  // namespace toolwright
