#include "grammar_toolwright.h"

#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE

#include <exception>

#include "llama_adapter.h"

namespace toolwright {

llama_sampler* CreateToolwrightGrammar(const llama_vocab* vocab, const GrammarSpec& spec,
                                       std::string* error) {
  grammar::SamplerSpec engine_spec;
  engine_spec.gbnf = spec.gbnf;
  engine_spec.root = spec.root;
  engine_spec.lazy.lazy = spec.lazy;
  engine_spec.lazy.trigger_patterns = spec.trigger_patterns;
  engine_spec.lazy.trigger_tokens.assign(spec.trigger_tokens.begin(), spec.trigger_tokens.end());
  try {
    return grammar::make_llama_sampler(vocab, engine_spec, error);
  } catch (const std::exception& e) {
    // The factory runs inside a worker: nothing may escape it.
    if (error != nullptr) *error = e.what();
    return nullptr;
  }
}

void ForgetToolwrightGrammarVocab(const llama_vocab* vocab) { grammar::forget_llama_vocab(vocab); }

const uint64_t* ToolwrightGrammarMask(llama_sampler* grammar) { return grammar::active_mask(grammar); }

}  // namespace toolwright

#else

namespace toolwright {
void ForgetToolwrightGrammarVocab(const llama_vocab*) {}
const uint64_t* ToolwrightGrammarMask(llama_sampler*) { return nullptr; }
}  // namespace toolwright

#endif  // TOOLWRIGHT_HAS_GRAMMAR_ENGINE
