#!/bin/sh
# Builds the Vulkan variant for the lent GPU machine here: the addon, bench:runtime's reference loop and
# llama-server, linked to one ggml build (the shaders compile once). Output: build-vulkan/. The shader
# compiler comes from scripts/vulkan-tools.sh (Debian 13's glslc; docs/gpu.md says why); the build also
# needs libvulkan-dev and spirv-headers.
#   sh scripts/gpu/build-vulkan.sh          (2 cores: about 30 minutes, most of it compiling shaders)
set -eu
cd "$(dirname "$0")/../.."
TOOLS=.cache/vulkan-tools
if [ -z "$(find /usr/lib /usr/lib64 -name libvulkan.so -print -quit 2>/dev/null)" ] || [ ! -d /usr/include/spirv ]; then
  echo "build-vulkan.sh: the Vulkan loader's development files or SPIR-V's headers are missing:" \
    "apt-get install libvulkan-dev spirv-headers" >&2
  exit 1
fi
[ -x "$TOOLS/glslc" ] || sh scripts/vulkan-tools.sh "$TOOLS"
TOOLWRIGHT_VULKAN=1 TOOLWRIGHT_PORTABLE=1 TOOLWRIGHT_VULKAN_GLSLC="$(pwd)/$TOOLS/glslc" \
  TOOLWRIGHT_VULKAN_INCLUDE_DIR="$(pwd)/$TOOLS/root/usr/include" \
  node scripts/build-native.mjs --out build-vulkan -- --CDTOOLWRIGHT_BUILD_LLAMA_SERVER=ON
cmake --build build-vulkan --target toolwright-llama-loop llama-server --parallel "$(nproc)"
