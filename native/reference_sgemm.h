// Which thread pools' reference-kernel decodes also decline llamafile's tiled matmul (reference_sgemm.cc).
#pragma once

struct ggml_threadpool;

namespace toolwright {

// Whether this build can decline the tiled matmul (its linker wrapped llamafile_sgemm).
bool CanDeclineTiledMatmul();

// From now on, decodes on ggml's reference kernels computed on `pool` decline the tiled matmul (or no
// longer do). Cheap; thread-safe; a pool is marked once however often this is called.
void DeclineTiledMatmul(const ggml_threadpool* pool, bool decline);

}  // namespace toolwright
