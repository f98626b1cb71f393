// `toolwright inspect`: the summary of a generated model checked against what the generator was
// asked for and what the GGUF reader sees, --json / --template, metadata of the wrong type, and
// clear one-line errors (exit code 1) for files that are not readable GGUF.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelSummary } from "../../src/cli/model-summary.js";
import { GgmlType, gguf, readGguf, writeGguf } from "../../src/runtime/gguf/index.js";
import { TEST_MODEL_PRESETS } from "../../src/runtime/gguf/test-model.js";
import { ensureTestModel, templatePath } from "../helpers/test-models.js";
import { runCli as run } from "../helpers/run-cli.js";

const TEMPLATE = "Qwen-Qwen3-0.6B";

let modelPath: string;
let dir: string;
beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "qwen2", template: TEMPLATE });
  dir = mkdtempSync(join(tmpdir(), "toolwright-inspect-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a generated model", () => {
  it("--json describes sizes, tensors, template and vocabulary as the file holds them", async () => {
    const r = await run("inspect", modelPath, "--json");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const s = JSON.parse(r.stdout) as ModelSummary;
    const info = await readGguf(modelPath);
    const tiny = TEST_MODEL_PRESETS.tiny;

    expect(s.general.architecture).toBe("llama");
    expect(s.hyperparameters).toMatchObject({
      block_count: tiny.layers,
      embedding_length: tiny.embeddingLength,
      feed_forward_length: tiny.feedForwardLength,
    });
    expect(s.hyperparameters["attention.head_count"]).toBe(tiny.heads);
    expect(s.general.fileType?.name).toBe(`MOSTLY_${tiny.weightType.toUpperCase()}`);

    expect(s.file.tensorCount).toBe(info.tensors.length);
    expect(s.tensors.parameterCount).toBe(info.tensors.reduce((n, t) => n + t.elementCount, 0));
    const countsByType = new Map<string, number>();
    for (const t of info.tensors) countsByType.set(t.typeName, (countsByType.get(t.typeName) ?? 0) + 1);
    expect(Object.fromEntries(Object.entries(s.tensors.types).map(([k, v]) => [k, v.count]))).toEqual(
      Object.fromEntries(countsByType),
    );
    // q8_0 stores 34 bytes per 32 weights; the f32 norms pull the average up a little.
    expect(s.tensors.bitsPerWeight).toBeGreaterThan(8.5 - 1e-9);
    expect(s.tensors.bitsPerWeight).toBeLessThan(9);

    expect(s.chatTemplate.source).toBe(readFileSync(templatePath(TEMPLATE), "utf8"));

    const tokens = info.metadata.get("tokenizer.ggml.tokens")!.value as string[];
    expect(s.vocabulary.size).toBe(tokens.length);
    expect(s.vocabulary.model).toBe("gpt2");
    expect(s.vocabulary.preTokenizer).toBe("qwen2");
    const eosId = Number(info.metadata.get("tokenizer.ggml.eos_token_id")!.value);
    expect(s.vocabulary.specialTokens.eos).toEqual({ id: eosId, text: tokens[eosId] });
    expect(s.vocabulary.controlTokenSample).toContain("<|im_start|>");
    expect(s.vocabulary.controlTokenSample.some((t) => t.startsWith("[PAD"))).toBe(false);
    const typed = Object.values(s.vocabulary.tokenTypes).reduce((a, b) => a + b, 0);
    expect(typed).toBe(tokens.length);
    expect(s.warnings).toEqual([]);
  });

  it("prints a readable summary with the template's first lines", async () => {
    const r = await run("inspect", modelPath);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}architecture\s+llama$/m);
    expect(r.stdout).toMatch(/^ {2}tensor types\s+q8_0 ×\d+, f32 ×\d+$/m);
    expect(r.stdout).toMatch(/^ {2}pre-tokenizer\s+qwen2$/m);
    const firstLine = readFileSync(templatePath(TEMPLATE), "utf8").split("\n")[0]!;
    expect(r.stdout).toContain(`  | ${firstLine}\n`);
    expect(r.stdout).toMatch(/more lines/);
    expect(r.stdout).toContain('"<|im_start|>"');
  });

  it("--template prints the whole template and nothing else", async () => {
    const r = await run("inspect", "--template", modelPath);
    expect(r.code).toBe(0);
    const source = readFileSync(templatePath(TEMPLATE), "utf8");
    expect(r.stdout).toBe(source.endsWith("\n") ? source : `${source}\n`);
  });

  it("--template on a model without a template fails clearly", async () => {
    const plain = await ensureTestModel({ vocab: "llama-spm" });
    const r = await run("inspect", plain, "--template");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has no chat template/);
  });
});

describe("metadata of the wrong shape is reported, not fatal", () => {
  it("lists a mistyped architecture and an out-of-range special token as warnings", async () => {
    const path = join(dir, "odd.gguf");
    await writeGguf(path, {
      metadata: [
        ["general.architecture", gguf.uint32(7)],
        ["tokenizer.ggml.model", gguf.string("llama")],
        ["tokenizer.ggml.tokens", gguf.stringArray(["<unk>", "<s>", "</s>"])],
        ["tokenizer.ggml.token_type", gguf.array("int32", new Int32Array([2, 3, 3]))],
        ["tokenizer.ggml.eos_token_id", gguf.uint32(99)],
        ["tokenizer.chat_template", gguf.uint32(1)],
      ],
      tensors: [{ name: "token_embd.weight", shape: [32, 3], type: GgmlType.F32, data: new Float32Array(96) }],
    });
    const r = await run("inspect", path, "--json");
    expect(r.code).toBe(0);
    const s = JSON.parse(r.stdout) as ModelSummary;
    expect(s.general.architecture).toBeNull();
    expect(s.chatTemplate.source).toBeNull();
    expect(s.vocabulary.specialTokens.eos).toEqual({ id: 99, text: null });
    expect(s.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/general\.architecture is a uint32, expected a string/),
        expect.stringMatching(/eos_token_id = 99 is outside the vocabulary \(3 tokens\)/),
        expect.stringMatching(/tokenizer\.chat_template is a uint32/),
      ]),
    );
    const text = await run("inspect", path);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Warnings$/m);
  });
});

describe("bad files: one clear line on stderr, exit code 1", () => {
  const cases: [string, () => string, RegExp][] = [
    ["a missing file", () => join(dir, "missing.gguf"), /missing\.gguf: no such file/],
    ["a directory", () => dir, /is a directory/],
    ["a text file", () => write("notes.gguf", "hello, not a model"), /not a GGUF file: starts with "hell"/],
    ["an empty file", () => write("empty.gguf", ""), /not a GGUF file: only 0 bytes/],
    [
      "a truncated model",
      () => write("cut.gguf", readFileSync(modelPath).subarray(0, 4096)),
      /cut\.gguf: .*(truncated|ends|past the end)/i,
    ],
  ];
  for (const [name, make, message] of cases) {
    it(name, async () => {
      const r = await run("inspect", make());
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/^toolwright inspect: /);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    });
  }

  function write(name: string, content: string | Uint8Array): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }
});

describe("usage", () => {
  it("--help and `help inspect` print the usage; mistakes are usage errors (2)", async () => {
    const help = await run("inspect", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: toolwright inspect <model\.gguf \| hf:OWNER\/REPO\/FILE\.gguf>/);
    expect((await run("help", "inspect")).stdout).toBe(help.stdout);
    expect((await run("--help")).stdout).toMatch(/^ {2}inspect\s/m);
    expect((await run("inspect")).code).toBe(2);
    const unknown = await run("inspect", modelPath, "--frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option --frobnicate/);
    expect((await run("inspect", modelPath, modelPath)).code).toBe(2);
    expect((await run("inspect", modelPath, "--json", "--template")).code).toBe(2);
  });
});
