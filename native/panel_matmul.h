// Whether a model's matmuls take ggml's batched panel kernel on this CPU (panel_matmul.cc).
#pragma once

struct llama_model;

namespace toolwright {

// True when ggml's CPU backend multiplies some of `model`'s weights by its panel kernel for runs of several
// tokens (ggml-cpu/iqp.cpp: the IQ grid types, on AVX2). Only ggml's use_ref switch turns that kernel off,
// so a context of such a model checks runs of generated tokens on use_ref (reference_kernels.h).
bool MultipliesByPanels(const llama_model* model);

}  // namespace toolwright
