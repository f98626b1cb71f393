#include "panel_matmul.h"

#if defined(TOOLWRIGHT_HAS_PANELS)
#include <set>

#include "ggml.h"
#include "iqp.h"
// llama_model::tensors_by_name: llama.cpp's public API does not name a model's tensor types.
#include "llama-model.h"
#endif

namespace toolwright {

bool MultipliesByPanels(const llama_model* model) {
#if defined(TOOLWRIGHT_HAS_PANELS)
  std::set<ggml_type> types;
  for (const auto& named : model->tensors_by_name) types.insert(named.second->type);
  // ggml answers for a matmul node of each type: a run of 64 tokens over a weight of 64 rows.
  const ggml_init_params params{ggml_tensor_overhead() * 3 * types.size() + 1024, nullptr, true};
  ggml_context* ctx = ggml_init(params);
  if (ctx == nullptr) return true;  // unknown: the switch that covers every kernel
  bool panels = false;
  for (ggml_type type : types) {
    const int64_t width = 256 * ggml_blck_size(type);  // whole blocks and superblocks of any type
    ggml_tensor* weight = ggml_new_tensor_2d(ctx, type, width, 64);
    ggml_tensor* tokens = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, width, 64);
    panels = panels || ggml_cpu_iqp_supports_mul_mat(ggml_mul_mat(ctx, weight, tokens));
  }
  ggml_free(ctx);
  return panels;
#else
  (void)model;
  return false;
#endif
}

}  // namespace toolwright
