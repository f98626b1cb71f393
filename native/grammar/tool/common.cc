#include "common.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "llama_adapter.h"

namespace toolwright::grammar::tool {

namespace fs = std::filesystem;

namespace {

bool read_file(const fs::path & p, std::string & out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

std::vector<std::string> split_texts(const std::string & s) {
  std::vector<std::string> out;
  const std::string sep = "\n\x1e\n";
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + sep.size();
  }
  return out;
}

bool load_case(const fs::path & p, std::vector<GrammarCase> & out, std::string * error) {
  GrammarCase c;
  c.name = p.string();
  if (!read_file(p, c.gbnf)) {
    *error = "cannot read " + c.name;
    return false;
  }
  fs::path txt = p;
  txt.replace_extension(".txt");
  std::string texts;
  if (fs::exists(txt) && read_file(txt, texts)) c.texts = split_texts(texts);
  fs::path lazy = p;
  lazy.replace_extension(".lazy");
  std::string triggers;
  if (fs::exists(lazy) && read_file(lazy, triggers)) {
    c.has_lazy = true;
    std::istringstream lines(triggers);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("pattern ", 0) == 0) {
        c.trigger_patterns.push_back(line.substr(8));
      } else if (line.rfind("token ", 0) == 0) {
        char * end = nullptr;
        const long id = strtol(line.c_str() + 6, &end, 10);
        if (end == line.c_str() + 6 || *end != '\0' || id < 0) {
          *error = lazy.string() + ": bad token id in '" + line + "'";
          return false;
        }
        c.trigger_tokens.push_back(static_cast<int32_t>(id));
      } else if (!line.empty()) {
        *error = lazy.string() + ": expected 'pattern REGEX' or 'token ID', got '" + line + "'";
        return false;
      }
    }
  }
  out.push_back(std::move(c));
  return true;
}

}  // namespace

std::vector<GrammarCase> load_cases(const std::vector<std::string> & paths, std::string * error) {
  std::vector<GrammarCase> out;
  for (const std::string & path : paths) {
    const fs::path p(path);
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto & e : fs::directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".gbnf") files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto & f : files) {
        if (!load_case(f, out, error)) return {};
      }
    } else if (!load_case(p, out, error)) {
      return {};
    }
  }
  return out;
}

bool load_vocab(const std::string & path, LoadedVocab & out, std::string * error) {
  llama_model_params params = llama_model_default_params();
  params.vocab_only = true;
  out.model = llama_model_load_from_file(path.c_str(), params);
  if (!out.model) {
    *error = "llama_model_load_from_file failed for " + path;
    return false;
  }
  out.vocab = llama_model_get_vocab(out.model);
  const double t0 = now_us();
  out.engine_vocab = vocab_from_llama(out.vocab);
  out.build_ms = (now_us() - t0) / 1000.0;
  return true;
}

std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text, bool parse_special) {
  std::vector<llama_token> toks(text.size() + 8);
  int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), toks.data(),
                             static_cast<int32_t>(toks.size()), false, parse_special);
  if (n < 0) {
    toks.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), toks.data(),
                       static_cast<int32_t>(toks.size()), false, parse_special);
  }
  toks.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return toks;
}

std::string json_str(const std::string & s) {
  std::string out = "\"";
  char buf[8];
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  auto pct = [&](double q) {
    const size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5));
    return v[i];
  };
  s.p50 = pct(0.5);
  s.p99 = pct(0.99);
  s.max = v.back();
  return s;
}

std::string json_summary(const Summary & s) {
  char buf[256];
  snprintf(buf, sizeof buf, "{\"n\":%zu,\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"max\":%.3f}", s.n, s.mean, s.p50,
           s.p99, s.max);
  return buf;
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace toolwright::grammar::tool
