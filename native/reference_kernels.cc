#include "reference_kernels.h"

// llama_context::get_sched(): llama.cpp's public API does not name the backends a context computes on.
#include "llama-context.h"
#include "panel_matmul.h"
#include "reference_attention.h"
#include "reference_sgemm.h"

namespace toolwright {

void ReferenceKernels::Attach(llama_context* ctx, const ggml_threadpool* pool,
                              const ggml_threadpool* pool_batch) {
  Detach();
  for (const ggml_threadpool* p : {pool, pool_batch}) {
    if (p != nullptr && (pools_.empty() || pools_.front() != p)) pools_.push_back(p);
  }
  ggml_backend_sched_t sched = ctx->get_sched();
  if (sched == nullptr) return;
  for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
    ggml_backend_t backend = ggml_backend_sched_get_backend(sched, i);
    ggml_backend_dev_t device = ggml_backend_get_device(backend);
    if (device == nullptr || ggml_backend_dev_type(device) != GGML_BACKEND_DEVICE_TYPE_CPU) continue;
    // Looked up as test-backend-ops does: a build with backends loaded at run time links no CPU symbol.
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(device);
    auto set =
        reinterpret_cast<SetUseRef>(ggml_backend_reg_get_proc_address(reg, "ggml_backend_cpu_set_use_ref"));
    if (set != nullptr) backends_.emplace_back(backend, set);
  }
  use_ref_ = !CanReferenceAttention() || MultipliesByPanels(llama_get_model(ctx));
}

void ReferenceKernels::Detach() {
  // The backends go with the context; the marks are process-wide, and a freed pool's address is reused.
  if (!use_ref_ && choice_ != KernelChoice::kFast) MarkPools(ReferenceAttention, false);
  if (choice_ == KernelChoice::kExact) MarkPools(DeclineTiledMatmul, false);
  backends_.clear();
  pools_.clear();
  use_ref_ = true;
  choice_ = KernelChoice::kFast;
}

void ReferenceKernels::Use(KernelChoice choice) {
  if (choice == choice_ || backends_.empty()) return;
  const bool reference = choice != KernelChoice::kFast;
  if (reference != (choice_ != KernelChoice::kFast)) {
    if (use_ref_) {
      for (const auto& [backend, set] : backends_) set(backend, reference);
    } else {
      MarkPools(ReferenceAttention, reference);
    }
  }
  if ((choice == KernelChoice::kExact) != (choice_ == KernelChoice::kExact)) {
    MarkPools(DeclineTiledMatmul, choice == KernelChoice::kExact);
  }
  choice_ = choice;
}

void ReferenceKernels::MarkPools(void (*mark)(const ggml_threadpool*, bool), bool marked) {
  for (const ggml_threadpool* pool : pools_) mark(pool, marked);
}

}  // namespace toolwright
