#!/bin/sh
# Runs on the lent GPU machine (the device tool), from the repository root, with some of .gpu/'s archives
# carried (scripts/gpu/pack.sh). Unpacks each carried archive once (the machine keeps what earlier calls
# unpacked and generated), then runs the steps named, each under its own time limit, so one that hangs leaves
# time for the others. Logs and tables go to $OUT (at most 8 files come back); scripts/gpu/tables.mjs turns
# them into docs/gpu.md's tables.
#
#   sh scripts/gpu/run.sh [STEP...]
#     models        generate the benchmark models (1B and 8B shapes: the 8B one is a 9 GB file), in the
#                   background while the steps after it run
#     test-cuda     the native and e2e tests that load models, every layer on the GPU (loadModel's default)
#     runtime-cuda  bench:runtime against llama.cpp's own loop built from the same source with the same backend
#     chat-cuda     bench:chat (1B and 8B shapes): grammar on vs off, our engine and llama.cpp's
#     serve-cuda    bench:serve against llama-server built from the same source with the same backend
#     bench-cuda    the three benchmarks one after another
#     test-vulkan, runtime-vulkan, ...   the same on the Vulkan build (carry .gl too: the loader's packages)
#
# Sizes and limits: GPU_RUNTIME_SIZES, GPU_CHAT_SIZES, GPU_SERVE_SIZE, GPU_TEST_FILES, GPU_*_SECONDS; each also
# per variant (GPU_CHAT_SIZES_vulkan=1b). A dry run on a CPU machine: `sh scripts/gpu/pack.sh cpu`, then
# run.sh with the cpu steps and small models (GPU_RUNTIME_SIZES=tiny GPU_CHAT_SIZES=tiny GPU_SERVE_SIZE=tiny).
set -u
OUT="${OUT:-/tmp/gpu-out}"
mkdir -p "$OUT"
START=$(date +%s)
RUNTIME_SIZES="${GPU_RUNTIME_SIZES:-1b,8b}"
CHAT_SIZES="${GPU_CHAT_SIZES:-1b 8b}"
SERVE_SIZE="${GPU_SERVE_SIZE:-1b}"
# A setting for variant $2: GPU_$1_$2 if set, else GPU_$1, else $3.
setting() { eval "echo \"\${GPU_$1_$2:-\${GPU_$1:-$3}}\""; }
stamp() { echo "[gpu +$(($(date +%s) - START)) s] $*" | tee -a "$OUT/env.txt"; }

# ---- unpack -----------------------------------------------------------------------------------------
# xz, or Python's lzma where the image has no xz.
unxz() {
  if command -v xz > /dev/null; then xz -dc "$1"
  else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"
  fi
}
mkdir -p /tmp/gpu-node gpu-build/.unpacked
if [ -f .gpu/node.xz ] && [ ! -x /tmp/gpu-node/node ]; then
  unxz .gpu/node.xz > /tmp/gpu-node/node.part && chmod +x /tmp/gpu-node/node.part
  mv /tmp/gpu-node/node.part /tmp/gpu-node/node
fi
for archive in .gpu/*.tar.xz; do
  [ -f "$archive" ] || continue
  marker="gpu-build/.unpacked/$(basename "$archive")-$(stat -c %s "$archive")"
  [ -f "$marker" ] || { unxz "$archive" | tar -xf - && touch "$marker"; }
done
export PATH="/tmp/gpu-node:$PATH"
# lib/ was compiled from this tree's src/ (pack.sh compiles it first), but the checkout here is newer than the
# unpacked files: without this the tests would take lib/ for stale and look for a TypeScript compiler.
[ -d lib ] && find lib -type f -exec touch {} +
stamp "unpacked: $(ls gpu-build/.unpacked | tr '\n' ' ')"

# ---- the machine ------------------------------------------------------------------------------------
# The driver's library and CUDA 13's runtime and cuBLAS (the image has them in PyTorch's site-packages).
libdirs=$(find /usr/local/nvidia /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu /opt /usr/local/lib \
  \( -name libcuda.so.1 -o -name libcudart.so.13 -o -name libcublas.so.13 -o -name libcublasLt.so.13 \) \
  2>/dev/null | xargs -r -n 1 dirname | awk '!seen[$0]++' | paste -sd: -)
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nvidia-smi 2>&1 | head -n 4
  echo "cores $(nproc); LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
} >> "$OUT/env.txt" 2>&1

# Points the tests and benchmarks at one variant's build, and reports what it finds.
USED=""
use() {
  [ "$USED" = "$1" ] && return 0
  export TOOLWRIGHT_ADDON="$PWD/gpu-build/$1/toolwright.node"
  export TOOLWRIGHT_LLAMA_LOOP="$PWD/gpu-build/$1/bin/toolwright-llama-loop"
  export TOOLWRIGHT_LLAMA_SERVER="$PWD/gpu-build/$1/bin/llama-server"
  # The Vulkan loader's packages, once they are carried (.gl).
  if [ "$1" = vulkan ] && [ ! -f gpu-build/.unpacked/gl ] && ls .gl/*.deb > /dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig && touch gpu-build/.unpacked/gl
  fi
  if [ "$1" = vulkan ] && [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
  {
    echo "== $1"
    ldd "$TOOLWRIGHT_ADDON" | grep -E "not found|cuda|cublas|vulkan"
  } >> "$OUT/env.txt" 2>&1
  # The step runs only where the build finds a device of its backend: else it would measure the CPU.
  VARIANT="$1" node --input-type=module -e '
    const { listDevices, loadedAddon } = await import(process.cwd() + "/lib/index.js");
    const devices = listDevices();
    console.log(JSON.stringify(loadedAddon()), JSON.stringify(devices));
    if (!devices.some((d) => d.backend.toLowerCase() === process.env.VARIANT)) process.exit(1);' \
    >> "$OUT/env.txt" 2>&1 || { stamp "no $1 device found: its steps are skipped (env.txt says why)"; return 1; }
  USED="$1"
}

# ---- steps ------------------------------------------------------------------------------------------
models() {
  SIZES="$RUNTIME_SIZES" SERVE_SIZE="$SERVE_SIZE" node --input-type=module -e '
    const { benchModel } = await import(process.cwd() + "/scripts/bench/bench-model.mjs");
    const servers = await import(process.cwd() + "/scripts/bench/servers.mjs");
    const sizes = process.env.SIZES.split(",").sort((a, b) => (a === "8b") - (b === "8b"));
    for (const size of sizes) await benchModel("qwen2", size);
    await servers.benchModel({ size: process.env.SERVE_SIZE, template: "Qwen-Qwen2.5-7B-Instruct" });' \
    >> "$OUT/env.txt" 2>&1
  stamp "models generated rc=$?"
}

tests() {
  use "$1" || return 1
  files=$(setting TEST_FILES "$1" "test/native/runtime- test/native/cli-chat test/native/cli-serve \
    test/native/gguf-test-model test/e2e/")
  # shellcheck disable=SC2086
  NO_COLOR=1 timeout "$(setting TEST_SECONDS "$1" 170)" node node_modules/vitest/vitest.mjs run --project native \
    --project e2e --maxWorkers 8 $files > "$OUT/test-$1.txt" 2>&1
  stamp "test-$1 rc=$?"
}

runtime() {
  use "$1" || return 1
  timeout "$(setting RUNTIME_SECONDS "$1" 120)" node scripts/bench/runtime.mjs \
    --sizes "$(setting RUNTIME_SIZES "$1" "$RUNTIME_SIZES")" --sampling greedy --gpu-layers 999 --reps 3 \
    > "$OUT/runtime-$1.txt" 2>&1
  stamp "bench:runtime $1 rc=$?"
}

chat() {
  use "$1" || return 1
  for size in $(setting CHAT_SIZES "$1" "$CHAT_SIZES"); do
    timeout "$(setting CHAT_SECONDS "$1" 80)" node scripts/bench/chat.mjs --size "$size" --reps 3 --threads 4 \
      >> "$OUT/chat-$1.txt" 2>&1
    stamp "bench:chat $1 $size rc=$?"
  done
}

serve() {
  use "$1" || return 1
  [ -x "$TOOLWRIGHT_LLAMA_SERVER" ] || { stamp "serve-$1: no llama-server carried (gpu-build/$1/bin)"; return 1; }
  timeout "$(setting SERVE_SECONDS "$1" 130)" node scripts/bench/serve.mjs --size "$SERVE_SIZE" --gpu-layers 999 \
    --trials 2 > "$OUT/serve-$1.txt" 2>&1
  stamp "bench:serve $1 rc=$?"
}

MODELS_PID=""
# The benchmarks need the models: wait for the background generation first.
models_ready() { if [ -n "$MODELS_PID" ]; then wait "$MODELS_PID"; MODELS_PID=""; fi; }
for step in "$@"; do
  case "$step" in
    models) models & MODELS_PID=$! ;;
    test-*) tests "${step#test-}" ;;
    runtime-* | chat-* | serve-*) models_ready; "${step%%-*}" "${step#*-}" ;;
    bench-*) models_ready; for b in runtime chat serve; do "$b" "${step#bench-}"; done ;;
    *) echo "run.sh: unknown step '$step' (models, test-V, runtime-V, chat-V, serve-V, bench-V)" >&2; exit 2 ;;
  esac
done
if [ -n "$MODELS_PID" ]; then wait "$MODELS_PID"; fi
stamp "done"
