/**
 * Cached random-weight test models for the test suite.
 *
 * `ensureTestModel` returns the path of a model in `.cache/test-models/` (git-ignored), generating it
 * the first time. Several vitest workers may ask for the same model at once: one of them takes a
 * lock file and generates into a temporary file that is renamed into place, the others wait for it.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestModel, type TEST_MODEL_PRESETS } from "../../src/runtime/gguf/test-model.js";

/** Repository root (this file is test/helpers/test-models.ts). */
export const REPO_ROOT = resolve(fileURLToPath(new URL("../../", import.meta.url)));
/** llama.cpp's test material: ggml-vocab-*.gguf and templates/*.jinja. */
export const LLAMA_MODELS_DIR = join(REPO_ROOT, "deps", "llama.cpp", "models");
export const TEST_MODEL_CACHE = join(REPO_ROOT, ".cache", "test-models");

/** Bump when the generator's output changes, so stale cached models are not reused. */
const GENERATOR_VERSION = 1;
/** A lock older than this is from a crashed worker. */
const STALE_LOCK_MS = 10 * 60_000;

export interface EnsureTestModelOptions {
  /** Vocabulary: "llama-bpe", "qwen2", "llama-spm", any other ggml-vocab-NAME.gguf name, or a path to a .gguf. */
  vocab: "llama-bpe" | "qwen2" | "llama-spm" | (string & {});
  /** Chat template: a file name in deps/llama.cpp/models/templates (".jinja" optional) or a path. Default: none. */
  template?: string;
  /** Default "tiny". */
  size?: keyof typeof TEST_MODEL_PRESETS;
  /** Default 1. */
  seed?: number;
}

/**
 * Path of a vocabulary GGUF given its short name (e.g. "qwen2") or a path.
 *
 * @example
 * vocabPath("qwen2"); // <repo>/deps/llama.cpp/models/ggml-vocab-qwen2.gguf
 */
export function vocabPath(vocab: string): string {
  if (vocab.endsWith(".gguf") || vocab.includes("/") || vocab.includes("\\")) return resolve(REPO_ROOT, vocab);
  return join(LLAMA_MODELS_DIR, `ggml-vocab-${vocab}.gguf`);
}

/**
 * Path of a chat template given its file name in models/templates (".jinja" optional) or a path.
 *
 * @example
 * templatePath("Qwen-Qwen3-0.6B"); // <repo>/deps/llama.cpp/models/templates/Qwen-Qwen3-0.6B.jinja
 */
export function templatePath(template: string): string {
  if (isAbsolute(template) || template.includes("/") || template.includes("\\")) return resolve(REPO_ROOT, template);
  return join(LLAMA_MODELS_DIR, "templates", template.endsWith(".jinja") ? template : `${template}.jinja`);
}

/**
 * Returns the path of a cached random-weight model with the given tokenizer and chat template,
 * generating it once (tiny: well under a second; bench: ~0.5B parameters, tens of seconds).
 *
 * @example
 * const path = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
 * const model = await loadModel(path);
 */
export async function ensureTestModel(options: EnsureTestModelOptions): Promise<string> {
  const { vocab, template, size = "tiny", seed = 1 } = options;
  if (typeof vocab !== "string" || vocab === "")
    throw new TypeError(`ensureTestModel: vocab must be a name or path, got ${JSON.stringify(vocab)}`);
  const vocabFile = vocabPath(vocab);
  if (!existsSync(vocabFile)) {
    throw new Error(
      `ensureTestModel: vocabulary ${vocabFile} not found (run "node scripts/fetch-llama.mjs" to get deps/llama.cpp)`,
    );
  }
  let chatTemplate: string | undefined;
  if (template !== undefined) {
    const file = templatePath(template);
    if (!existsSync(file)) throw new Error(`ensureTestModel: chat template ${file} not found`);
    chatTemplate = await readFile(file, "utf8");
  }

  const vocabStat = await stat(vocabFile);
  const key = createHash("sha256")
    .update(
      JSON.stringify({
        GENERATOR_VERSION,
        vocabFile,
        vocabSize: vocabStat.size,
        vocabMtime: vocabStat.mtimeMs,
        size,
        seed,
      }),
    )
    .update(chatTemplate ?? "\0no template")
    .digest("hex")
    .slice(0, 12);
  const label = [vocabName(vocab), template ? templateName(template) : "notemplate", size, `s${seed}`].join("-");
  const out = join(TEST_MODEL_CACHE, `${label}-${key}.gguf`);
  if (existsSync(out)) return out;

  await mkdir(TEST_MODEL_CACHE, { recursive: true });
  const lock = `${out}.lock`;
  for (;;) {
    if (existsSync(out)) return out;
    const handle = await open(lock, "wx").catch((e: NodeJS.ErrnoException) => {
      if (e.code === "EEXIST") return undefined;
      throw e;
    });
    if (handle) {
      await handle.close();
      try {
        if (!existsSync(out)) {
          const tmp = `${out}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
          try {
            await createTestModel({ vocabPath: vocabFile, chatTemplate, size, seed, outPath: tmp });
            await rename(tmp, out);
          } finally {
            await unlink(tmp).catch(() => undefined);
          }
        }
        return out;
      } finally {
        await unlink(lock).catch(() => undefined);
      }
    }
    // Another worker is generating it: wait, and take over a lock left behind by a crash.
    await new Promise((r) => setTimeout(r, 100));
    const lockStat = await stat(lock).catch(() => undefined);
    if (lockStat && Date.now() - lockStat.mtimeMs > STALE_LOCK_MS) await unlink(lock).catch(() => undefined);
  }
}

function vocabName(vocab: string): string {
  const base = vocab.split(/[\\/]/).pop()!;
  return base
    .replace(/^ggml-vocab-/, "")
    .replace(/\.gguf$/, "")
    .replace(/[^A-Za-z0-9._-]/g, "_");
}

function templateName(template: string): string {
  return template
    .split(/[\\/]/)
    .pop()!
    .replace(/\.jinja$/, "")
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .slice(0, 60);
}
