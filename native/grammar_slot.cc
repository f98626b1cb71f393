#include "grammar_slot.h"

#include <exception>
#include <map>
#include <mutex>

#include "log_capture.h"

namespace toolwright {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mutex;
  return mutex;
}

std::map<std::string, GrammarEngineFactory>& Registry();

// llama.cpp's GBNF sampler. It reports parse errors only through its log.
llama_sampler* CreateLlamaGrammar(const llama_vocab* vocab, const GrammarSpec& spec,
                                  std::string* error) {
  ScopedLogCapture capture;
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
  if (sampler == nullptr) {
    std::string reason = capture.Reason();
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

llama_sampler* CreateGrammarSampler(const llama_vocab* vocab, const GrammarSpec& spec,
                                    std::string* error) {
  GrammarEngineFactory factory = nullptr;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(spec.engine);
    if (it != Registry().end()) factory = it->second;
  }
  if (factory == nullptr) {
    std::string known;
    for (const std::string& name : GrammarEngineNames()) known += (known.empty() ? "" : ", ") + name;
    *error = "unknown grammar engine \"" + spec.engine + "\" (available: " + known + ")";
    return nullptr;
  }
  try {
    return factory(vocab, spec, error);
  } catch (const std::exception& e) {
    // e.g. an invalid trigger pattern (std::regex_error) inside the engine.
    *error = std::string("grammar engine \"") + spec.engine + "\" failed: " + e.what();
    return nullptr;
  }
}

}  // namespace toolwright
