#include "common.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "llama_adapter.h"

namespace toolwright::grammar::tool {

namespace fs = std::filesystem;

namespace {

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

std::vector<std::string> split_texts(const std::string& s) {
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

bool load_case(const fs::path& p, std::vector<GrammarCase>& out, std::string* error) {
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
        char* end = nullptr;
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

std::vector<GrammarCase> load_cases(const std::vector<std::string>& paths, std::string* error) {
  std::vector<GrammarCase> out;
  for (const std::string& path : paths) {
    const fs::path p(path);
    if (fs::is_directory(p)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::directory_iterator(p)) {
        if (e.is_regular_file() && e.path().extension() == ".gbnf") files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        if (!load_case(f, out, error)) return {};
      }
    } else if (!load_case(p, out, error)) {
      return {};
    }
  }
  return out;
}

bool load_vocab(const std::string& path, LoadedVocab& out, std::string* error) {
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

std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text, bool parse_special) {
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

std::string json_str(const std::string& s) {
  std::string out = "\"";
  char buf[8];
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
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
  s.p999 = pct(0.999);
  s.max = v.back();
  return s;
}

std::string json_summary(const Summary& s) {
  char buf[256];
  snprintf(buf, sizeof buf, "{\"n\":%zu,\"mean\":%.3f,\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f}",
           s.n, s.mean, s.p50, s.p99, s.p999, s.max);
  return buf;
}

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Every token checked against `pending`.
void clear_ill_formed_slow(std::vector<uint64_t>& bits, const Vocab& v, const std::string& pending);

bool well_formed_utf8_prefix(std::string_view bytes) {
  size_t i = 0;
  const auto at = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  while (i < bytes.size() && bytes[i] != '\0') {
    const uint8_t b = at(i);
    if (b < 0x80) {
      i++;
      continue;
    }
    int len = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF)
      len = 2;
    else if (b == 0xE0)
      len = 3, lo = 0xA0;
    else if (b == 0xED)
      len = 3, hi = 0x9F;
    else if (b >= 0xE1 && b <= 0xEF)
      len = 3;
    else if (b == 0xF0)
      len = 4, lo = 0x90;
    else if (b == 0xF4)
      len = 4, hi = 0x8F;
    else if (b >= 0xF1 && b <= 0xF3)
      len = 4;
    else
      return false;
    for (int k = 1; k < len; k++) {
      if (i + k >= bytes.size() || bytes[i + k] == '\0') return true;  // ends inside the sequence
      const uint8_t c = at(i + k);
      if (c < (k == 1 ? lo : 0x80) || c > (k == 1 ? hi : 0xBF)) return false;
    }
    i += static_cast<size_t>(len);
  }
  return true;
}

std::string pending_utf8(const std::string& text) {
  const size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; back++) {
    const auto b = static_cast<uint8_t>(text[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    return len > back ? text.substr(n - back) : std::string();
  }
  return std::string();
}

void clear_ill_formed(std::vector<uint64_t>& bits, const Vocab& v, const std::string& pending) {
  // Most steps have nothing pending: the tokens ill-formed on their own are found once per vocabulary.
  static const Vocab* alone_for = nullptr;
  static std::vector<uint64_t> ill_alone;
  if (pending.empty()) {
    if (alone_for != &v) {
      ill_alone.assign(v.n_words(), ~uint64_t{0});
      clear_ill_formed_slow(ill_alone, v, pending);
      for (auto& w : ill_alone) w = ~w;  // set = ill-formed on its own
      alone_for = &v;
    }
    for (size_t w = 0; w < bits.size() && w < ill_alone.size(); w++) bits[w] &= ~ill_alone[w];
    return;
  }
  clear_ill_formed_slow(bits, v, pending);
}

void clear_ill_formed_slow(std::vector<uint64_t>& bits, const Vocab& v, const std::string& pending) {
  std::string buf = pending;
  for (size_t id = 0; id < v.size(); id++) {
    if (!((bits[id >> 6] >> (id & 63)) & 1) || v.is_eog(static_cast<int32_t>(id))) continue;
    buf.resize(pending.size());
    buf += v.piece(static_cast<int32_t>(id));
    if (!well_formed_utf8_prefix(buf)) bits[id >> 6] &= ~(uint64_t{1} << (id & 63));
  }
}

}  // namespace toolwright::grammar::tool
