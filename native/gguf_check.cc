#include "gguf_check.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ggml.h"
#include "gguf.h"
#include "gguf_tokenizer_check.h"
#include "log_capture.h"

namespace toolwright {
namespace {

constexpr double kMaxLayers = 512;    // llama.cpp's LLAMA_MAX_LAYERS
constexpr double kMaxExperts = 1024;  // llama.cpp's LLAMA_MAX_EXPERTS

struct GgufFree {
  void operator()(gguf_context* ctx) const { gguf_free(ctx); }
};

std::optional<double> ScalarAt(const gguf_context* ctx, int64_t id) {
  switch (gguf_get_kv_type(ctx, id)) {
    case GGUF_TYPE_UINT8:
      return gguf_get_val_u8(ctx, id);
    case GGUF_TYPE_INT8:
      return gguf_get_val_i8(ctx, id);
    case GGUF_TYPE_UINT16:
      return gguf_get_val_u16(ctx, id);
    case GGUF_TYPE_INT16:
      return gguf_get_val_i16(ctx, id);
    case GGUF_TYPE_UINT32:
      return gguf_get_val_u32(ctx, id);
    case GGUF_TYPE_INT32:
      return gguf_get_val_i32(ctx, id);
    case GGUF_TYPE_UINT64:
      return static_cast<double>(gguf_get_val_u64(ctx, id));
    case GGUF_TYPE_INT64:
      return static_cast<double>(gguf_get_val_i64(ctx, id));
    case GGUF_TYPE_FLOAT32:
      return gguf_get_val_f32(ctx, id);
    case GGUF_TYPE_FLOAT64:
      return gguf_get_val_f64(ctx, id);
    case GGUF_TYPE_BOOL:
      return gguf_get_val_bool(ctx, id) ? 1.0 : 0.0;
    default:
      return std::nullopt;
  }
}

// The largest element of a numeric scalar or array key (per-layer keys may be arrays).
std::optional<double> MaxOf(const gguf_context* ctx, const std::string& key) {
  const int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0) return std::nullopt;
  if (gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY) return ScalarAt(ctx, id);
  const size_t n = gguf_get_arr_n(ctx, id);
  const gguf_type type = gguf_get_arr_type(ctx, id);
  const void* data =
      type == GGUF_TYPE_STRING || type == GGUF_TYPE_ARRAY ? nullptr : gguf_get_arr_data(ctx, id);
  if (data == nullptr) return std::nullopt;
  std::optional<double> best;
  for (size_t i = 0; i < n; i++) {
    double v = 0;
    switch (type) {
      case GGUF_TYPE_UINT32:
        v = static_cast<const uint32_t*>(data)[i];
        break;
      case GGUF_TYPE_INT32:
        v = static_cast<const int32_t*>(data)[i];
        break;
      case GGUF_TYPE_FLOAT32:
        v = static_cast<const float*>(data)[i];
        break;
      case GGUF_TYPE_UINT64:
        v = static_cast<double>(static_cast<const uint64_t*>(data)[i]);
        break;
      case GGUF_TYPE_INT64:
        v = static_cast<double>(static_cast<const int64_t*>(data)[i]);
        break;
      default:
        return std::nullopt;
    }
    if (!best || v > *best) best = v;
  }
  return best;
}

std::string Num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

bool Check(const gguf_context* ctx, std::string* reason) {
  // Every floating-point hyperparameter must be finite, and epsilons non-negative.
  for (int64_t id = 0; id < gguf_get_n_kv(ctx); id++) {
    const gguf_type type = gguf_get_kv_type(ctx, id);
    if (type != GGUF_TYPE_FLOAT32 && type != GGUF_TYPE_FLOAT64) continue;
    const double v = *ScalarAt(ctx, id);
    const std::string key = gguf_get_key(ctx, id);
    if (!std::isfinite(v)) {
      *reason = "metadata " + key + " is " + Num(v) + ", expected a finite number";
      return false;
    }
    if (key.size() >= 7 && key.compare(key.size() - 7, 7, "epsilon") == 0 && v < 0) {
      *reason = "metadata " + key + " is " + Num(v) + ", expected a non-negative number";
      return false;
    }
  }
  const int64_t arch_id = gguf_find_key(ctx, "general.architecture");
  if (arch_id < 0 || gguf_get_kv_type(ctx, arch_id) != GGUF_TYPE_STRING) return true;
  const std::string arch = gguf_get_val_str(ctx, arch_id);
  auto key = [&](const char* name) { return arch + "." + name; };

  const std::optional<double> layers = MaxOf(ctx, key("block_count"));
  if (layers && (*layers < 1 || *layers > kMaxLayers)) {
    *reason = "metadata " + key("block_count") + " is " + Num(*layers) + ", expected 1 to " + Num(kMaxLayers);
    return false;
  }
  const std::optional<double> nextn = MaxOf(ctx, key("nextn_predict_layers"));
  if (nextn && layers && *nextn > *layers) {
    *reason = "metadata " + key("nextn_predict_layers") + " (" + Num(*nextn) + ") exceeds block_count (" +
              Num(*layers) + ")";
    return false;
  }
  const double experts = MaxOf(ctx, key("expert_count")).value_or(0);
  const double used = MaxOf(ctx, key("expert_used_count")).value_or(0);
  const double groups = MaxOf(ctx, key("expert_group_count")).value_or(0);
  const double groups_used = MaxOf(ctx, key("expert_group_used_count")).value_or(0);
  const std::string experts_desc = "experts: expert_count " + Num(experts) + ", expert_used_count " +
                                   Num(used) + ", expert_group_count " + Num(groups) +
                                   ", expert_group_used_count " + Num(groups_used);
  bool experts_ok = experts >= 0 && experts <= kMaxExperts && used >= 0 && used <= experts;
  if (experts > 0) {
    experts_ok = experts_ok && used > 0 && groups < experts;
    if (groups > 1)
      experts_ok = experts_ok && std::fmod(experts, groups) == 0 && groups_used > 0 && groups_used < groups;
  } else {
    experts_ok = experts_ok && used == 0 && groups == 0;
  }
  if (!experts_ok) {
    *reason = "inconsistent " + experts_desc;
    return false;
  }
  return true;
}

// An RWKV token's bytes: its text uses \\t, \\n, \\r, \\xHH and \\c (for c) escapes.
std::string RwkvBytes(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    const char c = text[++i];
    if (c == 'x' && i + 2 < text.size()) {
      out += static_cast<char>(std::strtol(std::string(text.substr(i + 1, 2)).c_str(), nullptr, 16));
      i += 2;
    } else {
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    }
  }
  return out;
}

// RWKV's tokenizer matches the longest token from each position and loops forever (at load, where
// it tokenizes "\n", or later) when a token starts with a byte that is not a token by itself.
bool CheckRwkvVocabulary(const gguf_context* ctx, int64_t tokens_id, size_t n, std::string* reason) {
  bool single[256] = {};
  std::vector<std::pair<unsigned char, size_t>> firsts;
  for (size_t i = 0; i < n; i++) {
    const std::string bytes = RwkvBytes(gguf_get_arr_str(ctx, tokens_id, i));
    if (bytes.empty()) continue;
    const auto first = static_cast<unsigned char>(bytes[0]);
    if (bytes.size() == 1) single[first] = true;
    firsts.emplace_back(first, i);
  }
  for (const auto& [first, id] : firsts) {
    if (!single[first]) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02X", first);
      *reason = std::string("the RWKV vocabulary has no token for the byte ") + hex + ", with which token " +
                std::to_string(id) + " " + QuotedText(gguf_get_arr_str(ctx, tokens_id, id)) +
                " starts (the tokenizer would loop forever)";
      return false;
    }
  }
  return true;
}

// llama.cpp builds a text -> id map and asserts that it has as many entries as the token list.
bool CheckVocabulary(const gguf_context* ctx, std::string* reason) {
  const int64_t model_id = gguf_find_key(ctx, "tokenizer.ggml.model");
  // llama.cpp reports a missing or mistyped tokenizer.ggml.model itself.
  if (model_id < 0 || gguf_get_kv_type(ctx, model_id) != GGUF_TYPE_STRING) return true;
  const std::string model = gguf_get_val_str(ctx, model_id);
  if (model == "no_vocab" || model == "none") return true;
  const int64_t tokens_id = gguf_find_key(ctx, "tokenizer.ggml.tokens");
  if (tokens_id < 0 || gguf_get_kv_type(ctx, tokens_id) != GGUF_TYPE_ARRAY ||
      gguf_get_arr_type(ctx, tokens_id) != GGUF_TYPE_STRING)
    return true;  // llama.cpp reports a missing or mistyped token list itself
  const size_t n = gguf_get_arr_n(ctx, tokens_id);
  if (n == 0) {
    *reason = "the vocabulary (tokenizer.ggml.tokens) is empty";
    return false;
  }
  if (n > static_cast<size_t>(INT32_MAX)) {
    *reason = "the vocabulary has " + std::to_string(n) + " tokens, more than a token id can number";
    return false;
  }
  // llama.cpp turns a byte-typed token into its byte only for SPM, UGM and BPE vocabularies; for
  // the others (bert, rwkv, plamo2, ...) it aborts when it builds the token pieces at load.
  const bool bytes_ok = model == "llama" || model == "t5" || model == "gpt2" || model == "gemma4" ||
                        model == "hybriddna" || model == "whitespace";
  const int64_t types_id = gguf_find_key(ctx, "tokenizer.ggml.token_type");
  if (!bytes_ok && types_id >= 0 && gguf_get_kv_type(ctx, types_id) == GGUF_TYPE_ARRAY &&
      gguf_get_arr_type(ctx, types_id) == GGUF_TYPE_INT32) {
    const auto* types = static_cast<const int32_t*>(gguf_get_arr_data(ctx, types_id));
    const size_t n_types = gguf_get_arr_n(ctx, types_id);
    for (size_t i = 0; i < n_types && i < n; i++) {
      if (types[i] == LLAMA_TOKEN_TYPE_BYTE) {
        *reason = "token " + std::to_string(i) + " " + QuotedText(gguf_get_arr_str(ctx, tokens_id, i)) +
                  " is a byte token, which a \"" + model + "\" vocabulary cannot have";
        return false;
      }
    }
  }
  if (model == "rwkv" && !CheckRwkvVocabulary(ctx, tokens_id, n, reason)) return false;
  std::unordered_map<std::string_view, size_t> seen;
  seen.reserve(n);
  std::vector<size_t> empty;
  for (size_t i = 0; i < n; i++) {
    const std::string_view text = gguf_get_arr_str(ctx, tokens_id, i);
    if (text.empty()) {
      empty.push_back(i);
      continue;
    }
    const auto [it, inserted] = seen.emplace(text, i);
    if (!inserted) {
      *reason = "the vocabulary has two tokens with the same text " + QuotedText(text) + " (ids " +
                std::to_string(it->second) + " and " + std::to_string(i) + ")";
      return false;
    }
  }
  // llama.cpp renames an empty token i to "[EMPTY_i]", which must not be another token's text.
  for (const size_t i : empty) {
    const std::string name = "[EMPTY_" + std::to_string(i) + "]";
    const auto it = seen.find(name);
    if (it != seen.end()) {
      *reason = "token " + std::to_string(i) + " has an empty text, which llama.cpp names " +
                QuotedText(name) + ", the text of token " + std::to_string(it->second) +
                " (two tokens with the same text)";
      return false;
    }
  }
  return true;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ggml's kernels abort on operand types they do not implement: matrix weights cannot be integer
// tensors, and a norm's weight (multiplied into F32 activations) must be F32.
bool CheckTensorTypes(const gguf_context* ctx, std::string* reason) {
  for (int64_t id = 0; id < gguf_get_n_tensors(ctx); id++) {
    const std::string_view name = gguf_get_tensor_name(ctx, id);
    const ggml_type type = gguf_get_tensor_type(ctx, id);
    const bool is_integer =
        type == GGML_TYPE_I8 || type == GGML_TYPE_I16 || type == GGML_TYPE_I32 || type == GGML_TYPE_I64;
    const bool is_param = EndsWith(name, ".weight") || EndsWith(name, ".bias");
    const bool is_norm = is_param && (name.find("norm") != std::string_view::npos);
    if (is_norm && type != GGML_TYPE_F32) {
      *reason = "tensor " + std::string(name) + " has type " + ggml_type_name(type) +
                ", but a norm's weights must be F32";
      return false;
    }
    if (is_param && is_integer) {
      *reason = "tensor " + std::string(name) + " has the integer type " + ggml_type_name(type) +
                ", which no weight can have";
      return false;
    }
  }
  return true;
}

constexpr size_t kLlamaAlignment = 32;  // what ggml's CPU buffers from mapped memory require

bool NeedsReadLoad(const gguf_context* ctx) {
  const size_t base = gguf_get_data_offset(ctx);
  if (base % kLlamaAlignment != 0) return true;
  for (int64_t id = 0; id < gguf_get_n_tensors(ctx); id++) {
    if (gguf_get_tensor_offset(ctx, id) % kLlamaAlignment != 0) return true;
  }
  return false;
}

}  // namespace

bool CheckModelFile(const std::string& path, bool vocab_only, GgufFindings* findings, std::string* reason) {
  ScopedLogCapture quiet;  // parse errors are reported by llama.cpp's own load right after
  gguf_init_params params = {/*no_alloc=*/true, /*ctx=*/nullptr};
  std::unique_ptr<gguf_context, GgufFree> ctx(gguf_init_from_file(path.c_str(), params));
  if (!ctx) return true;
  if (!vocab_only && !Check(ctx.get(), reason)) return false;
  if (!CheckTokenizerKeys(ctx.get(), reason)) return false;
  if (!CheckVocabulary(ctx.get(), reason)) return false;
  if (vocab_only) return true;
  if (!CheckTensorTypes(ctx.get(), reason)) return false;
  findings->needs_read_load = NeedsReadLoad(ctx.get());
  return true;
}

bool CheckLoadedVocab(const llama_vocab* vocab, std::string* reason) {
  const enum llama_vocab_type type = llama_vocab_type(vocab);
  if (type == LLAMA_VOCAB_TYPE_NONE) return true;
  const int32_t n = llama_vocab_n_tokens(vocab);
  struct Needed {
    bool added;
    llama_token id;
    const char* what;
    const char* key;
  };
  const Needed needed[] = {
      {llama_vocab_get_add_bos(vocab), llama_vocab_bos(vocab), "BOS", "tokenizer.ggml.bos_token_id"},
      {llama_vocab_get_add_eos(vocab), llama_vocab_eos(vocab), "EOS", "tokenizer.ggml.eos_token_id"},
      {llama_vocab_get_add_sep(vocab), llama_vocab_sep(vocab), "SEP", "tokenizer.ggml.seperator_token_id"},
  };
  for (const Needed& t : needed) {
    if (t.added && (t.id == LLAMA_TOKEN_NULL || t.id < 0 || t.id >= n)) {
      *reason = std::string("the tokenizer adds a ") + t.what + " token, but the vocabulary (" +
                std::to_string(n) + " tokens) has none (" + t.key + " missing or out of range)";
      return false;
    }
  }
  if (type == LLAMA_VOCAB_TYPE_SPM) {
    // The SPM tokenizer falls back to byte tokens for any text its pieces do not cover.
    std::unordered_map<std::string, bool> texts;
    texts.reserve(static_cast<size_t>(n));
    for (llama_token id = 0; id < n; id++) texts.emplace(llama_vocab_get_text(vocab, id), true);
    for (int byte = 0; byte < 256; byte++) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "<0x%02X>", byte);
      if (texts.count(hex) == 0 && texts.count(std::string(1, static_cast<char>(byte))) == 0) {
        *reason = std::string("the SPM vocabulary has no token for the byte ") + hex +
                  " (the tokenizer needs one for every byte: is it a BPE vocabulary labelled \"llama\"?)";
        return false;
      }
    }
  }
  return true;
}

}  // namespace toolwright
