// Reference check for our GBNF: parses grammars with llama.cpp's own grammar parser and feeds
// texts to its own matcher, one code point at a time. Dev tool only (uses llama.cpp internals).
//
// Protocol on stdin, length-prefixed: "G <bytes>\n<grammar>" sets the grammar, each following
// "I <bytes>\n<text>" is matched against it. One answer line per record:
// "G ok" / "G fail", "I 1" (complete match) / "I 0" / "I skip" (no grammar).
#include "unicode.h"
#include "llama-grammar.h"

#include <iostream>
#include <string>

static bool read_record(std::string& kind, std::string& data) {
  std::string header;
  if (!std::getline(std::cin, header) || header.size() < 3) return false;
  kind = header.substr(0, 1);
  data.resize(std::stoul(header.substr(2)));
  std::cin.read(data.data(), static_cast<std::streamsize>(data.size()));
  return static_cast<bool>(std::cin);
}

static bool matches(const llama_grammar& base, const std::string& text) {
  llama_grammar* g = llama_grammar_clone_impl(base);
  bool alive = true;
  for (uint32_t cp : unicode_cpts_from_utf8(text)) {
    llama_grammar_accept(g, cp);
    if (llama_grammar_get_stacks(g).empty()) {
      alive = false;
      break;
    }
  }
  bool complete = false;
  if (alive)
    for (const auto& stack : llama_grammar_get_stacks(g)) complete = complete || stack.empty();
  llama_grammar_free_impl(g);
  return complete;
}

int main() {
  std::string kind, data;
  llama_grammar* grammar = nullptr;
  while (read_record(kind, data)) {
    if (kind == "G") {
      if (grammar) llama_grammar_free_impl(grammar);
      grammar = llama_grammar_init_impl(nullptr, data.c_str(), "root", false, nullptr, 0, nullptr, 0);
      std::cout << (grammar ? "G ok" : "G fail") << "\n";
    } else if (!grammar) {
      std::cout << "I skip\n";
    } else {
      std::cout << "I " << (matches(*grammar, data) ? 1 : 0) << "\n";
    }
  }
  if (grammar) llama_grammar_free_impl(grammar);
  return 0;
}
