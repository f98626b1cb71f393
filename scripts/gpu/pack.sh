#!/bin/sh
# Gathers what the lent GPU machine needs into .gpu/ (git-ignored; the device tool carries it): that
# machine has no Node.js and no registry, so Node's own binary, the compiled package (lib/), the
# node_modules the tests and benchmarks import, the vocabularies and templates the tests read, and
# the prebuilt binaries of one variant travel, compressed, in .gpu/: node.xz, common.tar.xz and one archive
# per binary (VARIANT-addon, VARIANT-toolwright-llama-loop, VARIANT-llama-server). What one call carries is
# capped at 64 MiB with the tracked tree, so the archives travel over three calls to one machine (it keeps what
# they unpacked).
#
#   sh scripts/gpu/pack.sh cuda      after scripts/gpu/build-cuda.sh: build-cuda/
#   sh scripts/gpu/pack.sh vulkan    after the Vulkan build (docs/gpu.md): build-vulkan/
#
# scripts/gpu/run.sh unpacks them there (the binaries into gpu-build/VARIANT/).
set -eu
cd "$(dirname "$0")/../.."
VARIANT="${1:?usage: pack.sh cuda|vulkan}"
case "$VARIANT" in
  cuda) BUILD=build-cuda ;;
  vulkan) BUILD=build-vulkan ;;
  cpu) BUILD=build ;; # a dry run of the scripts on this machine
  *) echo "pack.sh: the variant must be cuda, vulkan or cpu, got '$VARIANT'" >&2; exit 2 ;;
esac
# lib/ compiled from this tree's src/: run.sh marks it current there (the checkout there is newer than it).
node node_modules/typescript/bin/tsc -p tsconfig.build.json
[ -f "$BUILD/Release/toolwright.node" ] || { echo "pack.sh: $BUILD/Release/toolwright.node is missing" >&2; exit 1; }
mkdir -p .gpu
STAGE=.gpu/stage
rm -rf "$STAGE" .gpu/"$VARIANT"-*.tar.xz && mkdir -p "$STAGE/gpu-build/$VARIANT/bin"

# One archive per binary: a CUDA build's three each hold the kernels (~22 MiB compressed).
strip --strip-unneeded -o "$STAGE/gpu-build/$VARIANT/toolwright.node" "$BUILD/Release/toolwright.node"
tar -cf - -C "$STAGE" "gpu-build/$VARIANT/toolwright.node" | xz -T0 -6 > ".gpu/$VARIANT-addon.tar.xz"
for tool in toolwright-llama-loop bin/llama-server; do
  [ -f "$BUILD/$tool" ] || continue
  name=$(basename "$tool")
  strip -o "$STAGE/gpu-build/$VARIANT/bin/$name" "$BUILD/$tool"
  tar -cf - -C "$STAGE" "gpu-build/$VARIANT/bin/$name" | xz -T0 -6 > ".gpu/$VARIANT-$name.tar.xz"
done
rm -rf "$STAGE"

# Node's binary without its symbols: 2 MiB less to carry.
if [ ! -f .gpu/node.xz ]; then
  strip -o .gpu/node.stripped "$(command -v node)" && xz -T0 -6 -c .gpu/node.stripped > .gpu/node.xz
  rm -f .gpu/node.stripped
fi
# The compiled package, the packages the tests and benchmarks import with their dependencies (not the
# linters, the compilers or the type definitions), and the vocabularies and templates the tests read.
if [ ! -f .gpu/common.tar.xz ] || [ -n "$(find lib -newer .gpu/common.tar.xz -print -quit)" ]; then
  MODULES=$(node scripts/gpu/module-closure.mjs vitest @huggingface/jinja ajv openai ai @ai-sdk/provider zod)
  MODELS=deps/llama.cpp/models
  # shellcheck disable=SC2086
  VOCABS=$(for v in qwen2 llama-bpe llama-spm bert-bge; do ls "$MODELS/ggml-vocab-$v.gguf"*; done) # .inp/.out too
  # shellcheck disable=SC2086
  tar -cf - lib package.json $MODULES "$MODELS/templates" $VOCABS |
    xz -T0 -6 > .gpu/common.tar.xz
fi
tracked=$(git ls-files -z | xargs -0 du -cb | tail -n 1 | cut -f1)
echo "pack.sh: MiB of each archive; every call also carries the tracked tree ($((tracked >> 20)) MiB), 64 MiB in all:"
for f in .gpu/node.xz .gpu/common.tar.xz .gpu/"$VARIANT"-*.tar.xz; do
  echo "  $f $(($(stat -c %s "$f") >> 20))"
done
# The three calls docs/gpu.md plans, with what is packed so far: each must stay within 64 MiB (the tracked tree
# grows with the test fixtures: keep some room).
CALL1=".gpu/node.xz .gpu/common.tar.xz"
CALL2=".gpu/cuda-addon.tar.xz .gpu/cuda-toolwright-llama-loop.tar.xz"
CALL3=".gpu/cuda-llama-server.tar.xz .gpu/vulkan-addon.tar.xz .gpu/vulkan-toolwright-llama-loop.tar.xz .gl"
for call in 1 2 3; do
  eval "paths=\$CALL$call"
  # shellcheck disable=SC2154,SC2086
  bytes=$(du -cb $paths 2>/dev/null | tail -n 1 | cut -f1)
  total=$((bytes + tracked))
  verdict=fits
  [ "$total" -le $((64 << 20)) ] || verdict="OVER THE LIMIT: move an archive to another call"
  echo "pack.sh: call $call carries $((total >> 20)) MiB with the tracked tree ($verdict): $paths"
done
