// Small GGUF files for the GGUF targets' seed corpora (the TS reader and the native checks): a
// tiny llama-shaped model with an SPM and a BPE vocabulary, a vocabulary-only file, and one key of
// every value type. Kilobytes, so the fuzzer mutates the header rather than megabytes of weights.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GgmlType, type GgufValue, gguf, writeGguf } from "../../src/runtime/gguf/index.js";

const N_EMBD = 8;

function vocabulary(model: "llama" | "gpt2"): [string, GgufValue][] {
  const tokens =
    model === "llama"
      ? ["<unk>", "<s>", "</s>", "▁a", "b", ...Array.from({ length: 256 }, (_, i) => `<0x${hex(i)}>`)]
      : ["<|endoftext|>", "a", "b", "ab", "Ġa", "Ġ"];
  const entries: [string, GgufValue][] = [
    ["tokenizer.ggml.model", gguf.string(model)],
    ["tokenizer.ggml.tokens", gguf.stringArray(tokens)],
    ["tokenizer.ggml.scores", gguf.array("float32", new Float32Array(tokens.length).fill(-1))],
    [
      "tokenizer.ggml.token_type",
      gguf.array(
        "int32",
        Int32Array.from(tokens, (t) => (t.startsWith("<") ? 3 : 1)),
      ),
    ],
    ["tokenizer.ggml.bos_token_id", gguf.uint32(model === "llama" ? 1 : 0)],
    ["tokenizer.ggml.eos_token_id", gguf.uint32(model === "llama" ? 2 : 0)],
    ["tokenizer.chat_template", gguf.string("{% for m in messages %}{{ m.content }}{% endfor %}")],
  ];
  if (model === "gpt2") entries.push(["tokenizer.ggml.merges", gguf.stringArray(["a b", "Ġ a"])]);
  return entries;
}

function hex(i: number): string {
  return i.toString(16).toUpperCase().padStart(2, "0");
}

const HYPERPARAMETERS: [string, GgufValue][] = [
  ["general.architecture", gguf.string("llama")],
  ["general.name", gguf.string("fuzz seed")],
  ["llama.block_count", gguf.uint32(1)],
  ["llama.context_length", gguf.uint32(64)],
  ["llama.embedding_length", gguf.uint32(N_EMBD)],
  ["llama.feed_forward_length", gguf.uint32(16)],
  ["llama.attention.head_count", gguf.uint32(2)],
  ["llama.attention.head_count_kv", gguf.array("uint32", Uint32Array.of(2))],
  ["llama.attention.layer_norm_rms_epsilon", gguf.float32(1e-5)],
  ["llama.rope.freq_base", gguf.float32(10000)],
];

const EVERY_TYPE: [string, GgufValue][] = [
  ["t.u8", gguf.uint8(200)],
  ["t.i8", gguf.int8(-3)],
  ["t.u16", gguf.uint16(60000)],
  ["t.i16", gguf.int16(-300)],
  ["t.u32", gguf.uint32(4e9)],
  ["t.i32", gguf.int32(-7)],
  ["t.f32", gguf.float32(0.5)],
  ["t.f64", gguf.float64(-2.25)],
  ["t.u64", gguf.uint64(2n ** 40n)],
  ["t.i64", gguf.int64(-(2n ** 40n))],
  ["t.bool", gguf.bool(true)],
  ["t.str", gguf.string("héllo")],
  ["t.bools", gguf.boolArray([true, false])],
  ["t.nested", gguf.arrayOfArrays([gguf.stringArray(["x"]), gguf.array("int16", Int16Array.of(1, -1))])],
];

function tensors(nVocab: number) {
  return [
    { name: "token_embd.weight", shape: [N_EMBD, nVocab], type: GgmlType.F32, data: new Float32Array(N_EMBD * nVocab) },
    { name: "output_norm.weight", shape: [N_EMBD], type: GgmlType.F32, data: new Float32Array(N_EMBD).fill(1) },
  ];
}

/** The seed files, by name. */
export async function ggufSeeds(): Promise<[string, Uint8Array][]> {
  const files: [string, Parameters<typeof writeGguf>[1]][] = [
    ["llama-spm.gguf", { metadata: [...HYPERPARAMETERS, ...vocabulary("llama")], tensors: tensors(261) }],
    ["llama-bpe.gguf", { metadata: [...HYPERPARAMETERS, ...vocabulary("gpt2")], tensors: tensors(6) }],
    ["vocab-only.gguf", { metadata: [["general.architecture", gguf.string("llama")], ...vocabulary("gpt2")] }],
    ["every-type.gguf", { metadata: EVERY_TYPE, alignment: 8 }],
  ];
  const out: [string, Uint8Array][] = [];
  for (const [name, options] of files) {
    const path = join(tmpdir(), `toolwright-fuzz-seed-${process.pid}-${name}`);
    await writeGguf(path, options);
    out.push([name, readFileSync(path)]);
    rmSync(path, { force: true });
  }
  return out;
}
