#!/bin/sh
# Runs on the lent GPU machine (the device tool), from the repository root, with .gpu/ carried
# (scripts/gpu/pack.sh). Writes its logs and tables to $OUT (at most 8 files come back).
#
#   sh scripts/gpu/run.sh cuda all       both below, the models generated while the tests run (~9 min)
#   sh scripts/gpu/run.sh cuda bench     bench:runtime, bench:chat (1B and 8B shapes), bench:serve
#   sh scripts/gpu/run.sh cuda test      the native and e2e tests that load models, layers on the GPU
#   sh scripts/gpu/run.sh vulkan all     (Vulkan: carry .gl too, the loader's packages: docs/gpu.md)
#
# A second call on the same machine finds what the first unpacked and generated (ignored paths stay).
# Each step has its own time limit, so one that hangs leaves time for the others.
set -u
VARIANT="${1:?usage: run.sh cuda|vulkan bench|test|all}"
STEP="${2:-all}"
OUT="${OUT:-/tmp/gpu-out}"
mkdir -p "$OUT"
START=$(date +%s)
# The model shapes (test-model presets); a dry run on a CPU machine picks small ones.
RUNTIME_SIZES="${GPU_RUNTIME_SIZES:-bench,1b,8b}"
CHAT_SIZES="${GPU_CHAT_SIZES:-1b 8b}"
SERVE_SIZE="${GPU_SERVE_SIZE:-1b}"
stamp() { echo "[gpu +$(($(date +%s) - START)) s] $*" | tee -a "$OUT/env.txt"; }

# ---- unpack ---------------------------------------------------------------------------------
mkdir -p /tmp/gpu-node
if [ ! -x /tmp/gpu-node/node ]; then
  xz -dc .gpu/node.xz > /tmp/gpu-node/node && chmod +x /tmp/gpu-node/node
fi
export PATH="/tmp/gpu-node:$PATH"
if [ ! -f "gpu-build/.unpacked-$VARIANT" ]; then
  rm -rf gpu-build && mkdir gpu-build
  xz -dc ".gpu/$VARIANT.tar.xz" | tar -xf - && touch "gpu-build/.unpacked-$VARIANT"
fi
stamp "unpacked; node $(node --version)"

# ---- the GPU's runtime libraries --------------------------------------------------------------
if [ "$VARIANT" = vulkan ] && [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  fi
fi
# The driver's library and CUDA 13's runtime and cuBLAS (the image has them in PyTorch's site-packages).
libdirs=$(find /usr/local/nvidia /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu /opt /usr/local/lib \
  \( -name libcuda.so.1 -o -name libcudart.so.13 -o -name libcublas.so.13 -o -name libcublasLt.so.13 \) \
  2>/dev/null | xargs -r -n 1 dirname | awk '!seen[$0]++' | paste -sd: -)
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TOOLWRIGHT_ADDON="$PWD/gpu-build/toolwright.node"
export TOOLWRIGHT_LLAMA_LOOP="$PWD/gpu-build/bin/toolwright-llama-loop"
export TOOLWRIGHT_LLAMA_SERVER="$PWD/gpu-build/bin/llama-server"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  nproc
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  ldd gpu-build/toolwright.node | grep -E "not found|cuda|cublas|vulkan"
  node --input-type=module -e '
    const { listDevices, loadedAddon } = await import(process.cwd() + "/lib/index.js");
    console.log(JSON.stringify(loadedAddon()), JSON.stringify(listDevices()));'
} >> "$OUT/env.txt" 2>&1

# ---- models: generated in the background while the tests run (an 8B-shaped Q8_0 file is 9 GB) -----
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

# ---- tests: the suites that load models; loadModel's default places every layer on the GPU ----------
tests() {
  NO_COLOR=1 timeout "${GPU_TEST_SECONDS:-170}" node node_modules/vitest/vitest.mjs run --project native --project e2e \
    --maxWorkers 8 test/native/runtime- test/native/cli-chat test/native/cli-serve test/native/gguf-test-model \
    test/e2e/ > "$OUT/tests.txt" 2>&1
  stamp "tests rc=$?"
}

# ---- benchmarks: each against llama.cpp built from the same source, same backend ----------------------
bench() {
  timeout 120 node scripts/bench/runtime.mjs --sizes "$RUNTIME_SIZES" --sampling greedy --gpu-layers 999 --reps 3 \
    > "$OUT/runtime.txt" 2>&1
  stamp "bench:runtime rc=$?"
  for size in $CHAT_SIZES; do
    timeout 80 node scripts/bench/chat.mjs --size "$size" --reps 3 --threads 4 >> "$OUT/chat.txt" 2>&1
    stamp "bench:chat $size rc=$?"
  done
  if [ -x "$TOOLWRIGHT_LLAMA_SERVER" ]; then
    timeout 130 node scripts/bench/serve.mjs --size "$SERVE_SIZE" --gpu-layers 999 --trials 2 > "$OUT/serve.txt" 2>&1
    stamp "bench:serve rc=$?"
  fi
}

case "$STEP" in
  bench) models && bench ;;
  test) tests ;;
  all)
    models &
    tests
    wait
    bench
    ;;
  *) echo "run.sh: the step must be bench, test or all, got '$STEP'" >&2; exit 2 ;;
esac
stamp "done"
