#!/bin/sh
# Gathers what the lent GPU machine needs into .gpu/ (git-ignored; the device tool carries it): that
# machine has no Node.js and no registry, so Node's own binary, the compiled package (lib/), the
# node_modules the tests and benchmarks import, the vocabularies and templates the tests read, and
# the prebuilt binaries of one variant travel, compressed. The working tree that travels is capped
# at 64 MiB, so each variant has its own call and archive.
#
#   sh scripts/gpu/pack.sh cuda      after scripts/gpu/build-cuda.sh: build-cuda/
#   sh scripts/gpu/pack.sh vulkan    after the Vulkan build (docs/gpu.md): build-vulkan/
#
# scripts/gpu/run.sh unpacks it there.
set -eu
cd "$(dirname "$0")/../.."
VARIANT="${1:?usage: pack.sh cuda|vulkan}"
case "$VARIANT" in
  cuda) BUILD=build-cuda ;;
  vulkan) BUILD=build-vulkan ;;
  cpu) BUILD=build ;; # a dry run of the scripts on this machine
  *) echo "pack.sh: the variant must be cuda, vulkan or cpu, got '$VARIANT'" >&2; exit 2 ;;
esac
[ -f lib/index.js ] || { echo "pack.sh: lib/ is missing: npm run build:ts" >&2; exit 1; }
[ -f "$BUILD/Release/toolwright.node" ] || { echo "pack.sh: $BUILD/Release/toolwright.node is missing" >&2; exit 1; }
rm -rf .gpu && mkdir -p .gpu/stage/gpu-build/bin
STAGE=.gpu/stage
strip --strip-unneeded -o "$STAGE/gpu-build/toolwright.node" "$BUILD/Release/toolwright.node"
for tool in toolwright-llama-loop bin/llama-server; do
  if [ -f "$BUILD/$tool" ]; then strip -o "$STAGE/gpu-build/bin/$(basename "$tool")" "$BUILD/$tool"; fi
done
xz -T0 -6 -c "$(command -v node)" > .gpu/node.xz
# The packages the tests and benchmarks import, with their dependencies (not the linters, the
# compilers or the type definitions).
MODULES=$(node scripts/gpu/module-closure.mjs vitest @huggingface/jinja ajv openai ai @ai-sdk/provider zod)
MODELS=deps/llama.cpp/models
tar -cf - lib package.json $MODULES "$MODELS/templates" "$MODELS"/ggml-vocab-qwen2.gguf \
  "$MODELS"/ggml-vocab-llama-bpe.gguf "$MODELS"/ggml-vocab-llama-spm.gguf "$MODELS"/ggml-vocab-bert-bge.gguf \
  -C "$STAGE" gpu-build | xz -T0 -6 > ".gpu/$VARIANT.tar.xz"
rm -rf "$STAGE"
du -ab .gpu | sort -n
total=$(du -sb .gpu | cut -f1)
tracked=$(git ls-files -z | xargs -0 du -cb | tail -n 1 | cut -f1)
echo "pack.sh: .gpu is $((total >> 20)) MiB; with the tracked tree $(((total + tracked) >> 20)) MiB of the 64 MiB"
