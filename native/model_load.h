// Model.load(path, options, onProgress): loads a GGUF file on a worker thread.
//
// Returns { promise, cancel }: cancel() sets an atomic flag that llama.cpp's progress callback
// reads, so a load stops within one tensor; progress values (0..1) reach JS through a
// ThreadSafeFunction. Before llama.cpp sees the file, the path is checked (exists, is a
// regular file, starts with the GGUF magic) so the common mistakes get precise errors.
#pragma once

#include <napi.h>

namespace toolwright {

Napi::Value LoadModel(const Napi::CallbackInfo& info);

}  // namespace toolwright
