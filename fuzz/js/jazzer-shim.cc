// Lets Jazzer.js's fuzzer addon (the C++ sources @jazzer.js/fuzzer 2.1.0 ships) link against
// clang's stock libFuzzer: its own build downloads Jazzer's libFuzzer fork from GitHub, and its
// prebuilt addons need a newer glibc than Debian 12's. The fork adds three entry points; these
// map them onto stock libFuzzer's. Integer compares then report one call site instead of the JS
// one (string compares and edge coverage keep theirs).
#include <cstdint>

namespace libfuzzer {
extern void (*PrintCrashingInput)();
}

extern "C" {
void __sanitizer_cov_trace_const_cmp8(uint64_t arg1, uint64_t arg2);
void __sanitizer_cov_trace_pc_indir(uintptr_t callee);

// Stock libFuzzer hands this sanitizer hook its death callback (write the input as crash-<sha1>,
// print the final stats); the addon calls it as libfuzzer::PrintCrashingInput on a JS finding.
void __sanitizer_set_death_callback(void (*callback)()) { libfuzzer::PrintCrashingInput = callback; }

void __sanitizer_cov_trace_const_cmp8_with_pc(uintptr_t, uint64_t arg1, uint64_t arg2) {
  __sanitizer_cov_trace_const_cmp8(arg1, arg2);
}

void __sanitizer_cov_trace_pc_indir_with_pc(void*, uintptr_t callee) {
  __sanitizer_cov_trace_pc_indir(callee);
}
}
