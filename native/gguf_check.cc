#include "gguf_check.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>

#include "gguf.h"
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

}  // namespace

bool CheckHyperparameters(const std::string& path, std::string* reason) {
  ScopedLogCapture quiet;  // parse errors are reported by llama.cpp's own load right after
  gguf_init_params params = {/*no_alloc=*/true, /*ctx=*/nullptr};
  std::unique_ptr<gguf_context, GgufFree> ctx(gguf_init_from_file(path.c_str(), params));
  if (!ctx) return true;
  return Check(ctx.get(), reason);
}

}  // namespace toolwright
