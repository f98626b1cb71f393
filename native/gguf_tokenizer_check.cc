#include "gguf_tokenizer_check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "llama.h"

namespace toolwright {
namespace {

constexpr const char* kModelKey = "tokenizer.ggml.model";
constexpr const char* kTypesKey = "tokenizer.ggml.token_type";
constexpr const char* kScoresKey = "tokenizer.ggml.scores";
constexpr const char* kMergesKey = "tokenizer.ggml.merges";

// The tokenizer names llama.cpp builds a working tokenizer for (its "none", "no_vocab" and "test"
// build none or a dummy). A name llama.cpp adds later is refused until it is added here.
constexpr std::string_view kSupportedModels[] = {"llama",  "gpt2",   "bert",      "t5",        "rwkv",
                                                 "plamo2", "gemma4", "hybriddna", "whitespace"};

// The key's string array, or -1 when it is absent or not an array of strings.
int64_t StringArray(const gguf_context* ctx, const char* key) {
  const int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY ||
      gguf_get_arr_type(ctx, id) != GGUF_TYPE_STRING)
    return -1;
  return id;
}

// The key's array data when it is an array of `type`, else nullptr (with *n set to its length).
const void* TypedArray(const gguf_context* ctx, const char* key, gguf_type type, size_t* n) {
  const int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != type)
    return nullptr;
  *n = gguf_get_arr_n(ctx, id);
  return gguf_get_arr_data(ctx, id);
}

std::string TokenDesc(const gguf_context* ctx, int64_t tokens_id, size_t i) {
  std::string out = "token " + std::to_string(i);
  if (tokens_id >= 0 && i < gguf_get_arr_n(ctx, tokens_id))
    out += " " + QuotedText(gguf_get_arr_str(ctx, tokens_id, i));
  return out;
}

bool CheckModelName(const std::string& model, std::string* reason) {
  const std::string what = std::string("metadata ") + kModelKey + " is " + QuotedText(model);
  if (model == "none" || model == "no_vocab") {
    *reason = what +
              ": the model has no tokenizer, so it cannot tokenize or detokenize text (llama.cpp aborts "
              "on the first tokenize)";
    return false;
  }
  if (model == "test") {
    *reason =
        what + ", llama.cpp's dummy tokenizer for its own tests (it hashes text into arbitrary token ids)";
    return false;
  }
  for (const std::string_view known : kSupportedModels) {
    if (model == known) return true;
  }
  std::string names;
  for (const std::string_view known : kSupportedModels)
    names += (names.empty() ? "" : ", ") + std::string(known);
  *reason = what + ", not a tokenizer llama.cpp supports (" + names + ")";
  return false;
}

// Models whose byte tokens llama.cpp decodes from a "<0xHH>" text (it reads the two characters at 3).
bool ReadsByteText(const std::string& model) {
  return model == "llama" || model == "t5" || model == "gpt2" || model == "gemma4" || model == "hybriddna" ||
         model == "whitespace";
}

bool IsByteText(std::string_view text) {
  auto hex = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  };
  return text.size() == 6 && text.substr(0, 3) == "<0x" && hex(text[3]) && hex(text[4]) && text[5] == '>';
}

bool CheckTokenTypes(const gguf_context* ctx, const std::string& model, int64_t tokens_id,
                     std::string* reason) {
  size_t n = 0;
  const auto* types = static_cast<const int32_t*>(TypedArray(ctx, kTypesKey, GGUF_TYPE_INT32, &n));
  if (types == nullptr) return true;
  const size_t n_tokens = tokens_id >= 0 ? gguf_get_arr_n(ctx, tokens_id) : 0;
  for (size_t i = 0; i < n && i < n_tokens; i++) {
    const int32_t type = types[i];
    if (type < LLAMA_TOKEN_TYPE_UNDEFINED || type > LLAMA_TOKEN_TYPE_BYTE) {
      *reason = std::string("metadata ") + kTypesKey + "[" + std::to_string(i) + "] is " +
                std::to_string(type) + " (" + TokenDesc(ctx, tokens_id, i) + "), not a token type (0 to 6)";
      return false;
    }
    if (type == LLAMA_TOKEN_TYPE_BYTE && ReadsByteText(model) &&
        !IsByteText(gguf_get_arr_str(ctx, tokens_id, i))) {
      *reason = std::string("metadata ") + kTypesKey + "[" + std::to_string(i) + "] makes " +
                TokenDesc(ctx, tokens_id, i) +
                " a byte token (type 6), but a byte token's text must be <0xHH>";
      return false;
    }
  }
  return true;
}

// A NaN score breaks the ordering the SPM and Unigram tokenizers sort their candidates by.
bool CheckScores(const gguf_context* ctx, int64_t tokens_id, std::string* reason) {
  size_t n = 0;
  const auto* scores = static_cast<const float*>(TypedArray(ctx, kScoresKey, GGUF_TYPE_FLOAT32, &n));
  const size_t n_tokens = tokens_id >= 0 ? gguf_get_arr_n(ctx, tokens_id) : 0;
  for (size_t i = 0; scores != nullptr && i < n && i < n_tokens; i++) {
    if (std::isnan(scores[i])) {
      *reason = std::string("metadata ") + kScoresKey + "[" + std::to_string(i) + "] is NaN (" +
                TokenDesc(ctx, tokens_id, i) + "), expected a number";
      return false;
    }
  }
  return true;
}

// A BPE merge is "LEFT RIGHT": llama.cpp splits it at the first space after the first character and
// silently keeps a malformed entry as an empty pair, so the merge it meant is lost.
bool CheckMerges(const gguf_context* ctx, const std::string& model, std::string* reason) {
  if (model != "gpt2" && model != "gemma4" && model != "hybriddna" && model != "whitespace") return true;
  const int64_t id = StringArray(ctx, kMergesKey);
  if (id < 0) return true;
  const size_t n = gguf_get_arr_n(ctx, id);
  for (size_t i = 0; i < n; i++) {
    const std::string_view merge = gguf_get_arr_str(ctx, id, i);
    const size_t space = merge.empty() ? std::string_view::npos : merge.find(' ', 1);
    if (space == std::string_view::npos || space + 1 == merge.size()) {
      *reason = std::string("metadata ") + kMergesKey + "[" + std::to_string(i) + "] is " +
                QuotedText(merge) + ", expected two pieces separated by a space";
      return false;
    }
  }
  return true;
}

}  // namespace

bool CheckTokenizerKeys(const gguf_context* ctx, std::string* reason) {
  const int64_t model_id = gguf_find_key(ctx, kModelKey);
  if (model_id < 0 || gguf_get_kv_type(ctx, model_id) != GGUF_TYPE_STRING) return true;
  const std::string model = gguf_get_val_str(ctx, model_id);
  if (!CheckModelName(model, reason)) return false;
  const int64_t tokens_id = StringArray(ctx, "tokenizer.ggml.tokens");
  return CheckTokenTypes(ctx, model, tokens_id, reason) && CheckScores(ctx, tokens_id, reason) &&
         CheckMerges(ctx, model, reason);
}

std::string QuotedText(std::string_view text) {
  std::string out = "\"";
  for (const char c : text.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || c == '"' || c == '\\') {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  if (text.size() > 40) out += "...";
  return out + "\"";
}

}  // namespace toolwright
