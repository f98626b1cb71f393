// What Jazzer.js's addon includes from libFuzzer's internal headers (compiler-rt's lib/fuzzer, which
// Debian's clang packages do not ship): the user callback type and the driver entry point, as stock
// libFuzzer exports them (libclang_rt.fuzzer_no_main).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fuzzer {
using UserCallback = int (*)(const uint8_t* data, size_t size);
int FuzzerDriver(int* argc, char*** argv, UserCallback callback);
}  // namespace fuzzer
