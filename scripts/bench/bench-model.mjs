// The random-weight models the benchmarks run on, generated once into .cache/bench-models
// (VOCAB-SIZE-s1-v1.gguf; written to a temporary file and renamed, so an interrupted run leaves
// no half-written model behind), and the compiled package they import.
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Imports a module of the compiled package (`lib/`, from `npm run build:ts`): `await lib("index.js")`. */
export const lib = (path) => import(pathToFileURL(join(ROOT, "lib", path)).href);

/**
 * The path of the bench model with llama.cpp's `vocab` vocabulary (ggml-vocab-VOCAB.gguf) and the
 * test-model preset `size`, generated first when it is not in the cache.
 */
export async function benchModel(vocab, size) {
  const cache = join(ROOT, ".cache", "bench-models");
  const path = join(cache, `${vocab}-${size}-s1-v1.gguf`);
  if (existsSync(path)) return path;
  const { createTestModel } = await lib("runtime/gguf/test-model.js");
  mkdirSync(cache, { recursive: true });
  const start = performance.now();
  process.stderr.write(`generating ${path} ...`);
  const tmp = `${path}.${process.pid}.tmp`;
  await createTestModel({
    vocabPath: join(ROOT, "deps", "llama.cpp", "models", `ggml-vocab-${vocab}.gguf`),
    size,
    seed: 1,
    outPath: tmp,
  });
  renameSync(tmp, path);
  process.stderr.write(` ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
  return path;
}
