#!/bin/sh
# Builds the CUDA variant for the lent GPU machine (an H200: sm_90) here, where build time is free:
# the addon, bench:runtime's reference loop and llama-server, all linked to one ggml build, so the
# CUDA kernels compile once. Output: build-cuda/ (Release/toolwright.node, toolwright-llama-loop,
# bin/llama-server). scripts/gpu/pack.sh then gathers what travels.
#
# cuBLAS comes from PyPI's nvidia-cublas wheel (this machine's CUDA 13 toolkit has no cuBLAS):
# headers and link-time libraries only; the GPU machine has its own copy at run time.
#   sh scripts/gpu/build-cuda.sh            (2 cores: about 40 minutes; ccache makes a rebuild quick)
set -eu
cd "$(dirname "$0")/../.."
CUBLAS=.cache/cuda-cublas
ARCHS=${TOOLWRIGHT_CUDA_ARCHS:-90-real}
if [ ! -e "$CUBLAS/nvidia/cu13/include/cublas_v2.h" ]; then
  mkdir -p "$CUBLAS"
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$CUBLAS" "nvidia-cublas>=13,<14"
  (cd "$CUBLAS" && unzip -q -o nvidia_cublas-*.whl 'nvidia/*')
  (cd "$CUBLAS/nvidia/cu13/lib" && ln -sf libcublas.so.13 libcublas.so && ln -sf libcublasLt.so.13 libcublasLt.so)
fi
CUBLAS=$(pwd)/$CUBLAS/nvidia/cu13
# Link-time stand-in for the driver library (libcuda.so.1), which only an NVIDIA driver installs: one stub per
# driver entry point ggml's CUDA backend calls (its memory pool), found in its source. The GPU machine's real
# driver is loaded at run time.
node scripts/fetch-llama.mjs
CUDA_SRC="${TOOLWRIGHT_LLAMA_DIR:-deps/llama.cpp}/ggml/src/ggml-cuda"
STUB=$(pwd)/.cache/cuda-driver-stub
mkdir -p "$STUB"
grep -ohE '\bcu[A-Z][A-Za-z0-9_]+ *\(' "$CUDA_SRC"/*.cu "$CUDA_SRC"/*.cuh | sed 's/ *($//' | grep -vx cuBLAS |
  sort -u | sed 's/.*/int &(void) { return 801; }/' > "$STUB/stub.c"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$STUB/libcuda.so" "$STUB/stub.c"
export CPATH="$CUBLAS/include${CPATH:+:$CPATH}"
TOOLWRIGHT_CUDA=1 TOOLWRIGHT_PORTABLE=1 node scripts/build-native.mjs --out build-cuda -- \
  "--CDCMAKE_CUDA_ARCHITECTURES=$ARCHS" "--CDCMAKE_LIBRARY_PATH=$CUBLAS/lib;$STUB" \
  --CDTOOLWRIGHT_BUILD_LLAMA_SERVER=ON --CDGGML_CUDA_COMPRESSION_MODE=size
cmake --build build-cuda --target toolwright-llama-loop llama-server --parallel "$(nproc)"
