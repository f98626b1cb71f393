// The fuzz targets: native ones (libFuzzer harnesses in fuzz/native/, built with clang) and
// TypeScript ones (fuzz/js/targets/, run by Jazzer.js). One row per target; the runner and the
// builder read nothing else.

/** Our GBNF engine's sources, without the llama.cpp adapter (the fuzz builds link no llama.cpp). */
const GRAMMAR = "native/grammar";

/**
 * @typedef {{ name: string, kind: "native" | "js", what: string, maxLen: number }} BaseTarget
 * @typedef {BaseTarget & { kind: "native", harness: string, sources: string[], ggml: boolean,
 *   seeds: { dirs?: string[], ext?: string, js?: string } }} NativeTarget
 * @typedef {BaseTarget & { kind: "js", module: string, sync: boolean }} JsTarget
 * @typedef {NativeTarget | JsTarget} FuzzTarget
 */

/** @type {FuzzTarget[]} */
export const TARGETS = [
  {
    name: "gbnf-parse",
    kind: "native",
    what: "GBNF parser and compile checks (native/grammar)",
    harness: "fuzz/native/gbnf_parse_fuzz.cc",
    sources: [GRAMMAR],
    ggml: false,
    maxLen: 4096,
    seeds: { dirs: ["deps/llama.cpp/grammars", "test/fixtures/gbnf", "test/fixtures/gbnf/invalid"], ext: ".gbnf" },
  },
  {
    name: "grammar-engine",
    kind: "native",
    what: "grammar engine: masks, accept, rollback, lazy triggers (native/grammar)",
    harness: "fuzz/native/grammar_engine_fuzz.cc",
    sources: [GRAMMAR],
    ggml: false,
    maxLen: 4096,
    seeds: { dirs: ["deps/llama.cpp/grammars", "test/fixtures/gbnf"], ext: ".gbnf" },
  },
  {
    name: "gguf-check",
    kind: "native",
    what: "pre-load GGUF checks over ggml's reader (native/gguf_check*)",
    harness: "fuzz/native/gguf_check_fuzz.cc",
    sources: [
      "native/gguf_check.cc",
      "native/gguf_tokenizer_check.cc",
      "fuzz/native/quiet_log_capture.cc",
      "fuzz/native/no_llama_vocab.cc",
    ],
    ggml: true,
    maxLen: 1 << 16,
    seeds: { js: "gguf-reader" },
  },
  {
    name: "template",
    kind: "js",
    what: "Jinja lexer, parser and evaluator (src/template)",
    module: "fuzz/js/targets/template.ts",
    sync: true,
    maxLen: 8192,
  },
  {
    name: "chat-stream",
    kind: "js",
    what: "streaming chat parser vs whole-text parse (src/chat, src/peg)",
    module: "fuzz/js/targets/chat-stream.ts",
    sync: true,
    maxLen: 2048,
  },
  {
    name: "json-schema",
    kind: "js",
    what: "JSON Schema → GBNF converter (src/grammar/schema)",
    module: "fuzz/js/targets/json-schema.ts",
    sync: true,
    maxLen: 4096,
  },
  {
    name: "gguf-reader",
    kind: "js",
    what: "GGUF reader (src/runtime/gguf)",
    module: "fuzz/js/targets/gguf-reader.ts",
    sync: false,
    maxLen: 1 << 16,
  },
];

/** The target called `name`, or undefined. */
export function findTarget(name) {
  return TARGETS.find((t) => t.name === name);
}
