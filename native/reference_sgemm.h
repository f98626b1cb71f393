// Which thread pools' decodes decline llamafile's tiled matmul (reference_sgemm.cc).
#pragma once

struct ggml_threadpool;

namespace toolwright {

// Whether this build can decline the tiled matmul (its linker wrapped llamafile_sgemm).
bool CanDeclineTiledMatmul();

// From now on, decodes computed on `pool` decline the tiled matmul (or no longer do). Cheap; thread-safe;
// each call that declines is undone by one that does not.
void DeclineTiledMatmul(const ggml_threadpool* pool, bool decline);

}  // namespace toolwright
