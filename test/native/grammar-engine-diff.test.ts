// Differential test of our GBNF engine against llama.cpp's grammar sampler: both engines walk
// the same token sequences (the fixtures' valid texts, then random walks) over real
// vocabularies, and at every step their masks over the whole vocabulary must be identical.
// Rollbacks are checked too (undoing n tokens must restore that step's mask).
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sharedData } from "../helpers/shared-data.js";
import { type DiffResult, GBNF_FIXTURES, LLAMA_GRAMMARS, runGrammarTool, vocabPath } from "../helpers/grammar-tool.js";

interface DiffCase {
  name: string;
  vocab: string;
  paths: string[];
  walks: number;
  steps: number;
  extra?: string[];
  minGrammars: number;
  /** With --await-warmup: at least this many masks must come from warmed-up positions, */
  minTruncatedMasks?: number;
  /** ... and this many of them through the suffix tree of the position's exits. */
  minSuffixMasks?: number;
  /** ... and at least this many cut positions masked when met again. */
  minReturnedPositions?: number;
}

// llama.cpp's sampler takes 30-150 ms per mask on a 128k vocabulary: npm test walks a sample that
// finishes far inside the timeout on a loaded 2-core machine; TOOLWRIGHT_GRAMMAR_DIFF_FULL=1 walks more.
const FULL = process.env.TOOLWRIGHT_GRAMMAR_DIFF_FULL === "1";

const CASES: DiffCase[] = [
  // Hand-written edge cases on the 128k Llama 3 vocabulary (byte-level BPE).
  { name: "fixtures / llama-bpe", vocab: "llama-bpe", paths: [GBNF_FIXTURES], walks: 1, steps: 40, minGrammars: 11 },
  // The same on Qwen2's 152k vocabulary; its special-token grammar must fail in both engines. The texts
  // only (random walks with TOOLWRIGHT_GRAMMAR_DIFF_FULL=1): llama.cpp's masks take ~0.1 s a step here.
  {
    name: "fixtures / qwen2",
    vocab: "qwen2",
    paths: [GBNF_FIXTURES],
    walks: FULL ? 1 : 0,
    steps: 24,
    minGrammars: 10,
  },
  // SentencePiece with byte-fallback tokens: multi-byte characters arrive one byte at a time.
  {
    name: "fixtures / llama-spm",
    vocab: "llama-spm",
    paths: [GBNF_FIXTURES],
    walks: FULL ? 4 : 2,
    steps: FULL ? 60 : 40,
    minGrammars: 10,
  },
  // llama.cpp's own example grammars as test material.
  {
    name: "llama.cpp grammars / llama-bpe",
    vocab: "llama-bpe",
    paths: [LLAMA_GRAMMARS],
    walks: 1,
    steps: 24,
    minGrammars: 8,
  },
  // Masks after the engine's warm-up: a position's mask, cached, serves the same object or value under other
  // contexts (a point as the origin, in an array, nested in a style); past each exit, the context takes the
  // rests of the tokens (a value's `",`, `}]`), or the real state walks below the exits. (A bounded string's
  // class chain that finishes the cut frames must be walked: long-repetitions.)
  {
    name: "warmed-up positions / llama-bpe",
    vocab: "llama-bpe",
    paths: ["object-contexts", "exclusion-keys", "long-repetitions", "nested-rules"].map((f) =>
      join(GBNF_FIXTURES, `${f}.gbnf`),
    ),
    walks: 1,
    steps: 40,
    extra: ["--await-warmup"],
    minGrammars: 4,
    minTruncatedMasks: 10,
    minSuffixMasks: 30,
  },
  // The warm-up explores each position once, and also where a known one finishes under another context: after a
  // point's `"x": 0` (a number met before), the rest of that point, then of the object holding it. Along the
  // fixture's texts: 130 masks from positions or more (114 when the warm-up stopped at known positions).
  {
    name: "warmed-up positions, texts only / llama-bpe",
    vocab: "llama-bpe",
    paths: [join(GBNF_FIXTURES, "object-contexts.gbnf")],
    walks: 0,
    steps: 40,
    extra: ["--await-warmup"],
    minGrammars: 1,
    minTruncatedMasks: 130,
  },
  // An object counting the required properties seen, in any order: each count is a rule of its own, but the
  // next key is cut below the rule it calls (opt or req), so one position serves every count, and whitespace
  // after a newline, which may end at once, is cut below its frame. Along the fixture's text: 15 masks from
  // positions (13 when cuts kept the count's rule), one of them from a position the warm-up left (too cheap
  // alone), masked when met again. (Random walks are seeded by the file's path: they differ between clones.)
  {
    name: "counted keys / llama-bpe",
    vocab: "llama-bpe",
    paths: [join(GBNF_FIXTURES, "counted-keys.gbnf")],
    walks: 0,
    steps: 40,
    extra: ["--await-warmup"],
    minGrammars: 1,
    minTruncatedMasks: 15,
    minReturnedPositions: 1,
  },
  {
    name: "warmed-up positions / llama-spm",
    vocab: "llama-spm",
    paths: [GBNF_FIXTURES],
    walks: 2,
    steps: 40,
    extra: ["--await-warmup"],
    minGrammars: 10,
    minTruncatedMasks: 1,
  },
  // Lazy grammars: nothing is masked until the trigger, then the text from the trigger on is fed;
  // branch walks follow the text past the trigger, then take random tokens.
  {
    name: "lazy trigger pattern / llama-bpe",
    vocab: "llama-bpe",
    paths: [join(GBNF_FIXTURES, "lazy")],
    walks: 3,
    steps: 50,
    extra: ["--branch-walks", "3", "--trigger-pattern", "[\\s\\S]*?(<tool_call>)[\\s\\S]*"],
    minGrammars: 1,
  },
];

// MaskBench schemas through toolwright's JSON-Schema converter (src/grammar), when both exist.
const MASKBENCH = sharedData("maskbench-dev");
type Converter = (schema: unknown) => string;
async function loadConverter(): Promise<Converter | null> {
  try {
    const mod = (await import("../../src/grammar/index.js")) as Record<string, unknown>;
    const fn = mod.jsonSchemaToGbnf;
    return typeof fn === "function" ? (fn as Converter) : null;
  } catch {
    return null;
  }
}
const converter = MASKBENCH !== null ? await loadConverter() : null;

/** Python's json.dumps(data, ensure_ascii=False): the MaskBench instance text. */
function pyJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(v);
}

/**
 * Every `stride`-th MaskBench schema with a valid instance of at most `maxInstance` characters (each
 * character is a step of both engines), converted: X.gbnf + X.txt.
 */
function convertSchemas(convert: Converter, count: number, stride: number, maxInstance = Infinity): string {
  const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-schemas-"));
  const files = readdirSync(MASKBENCH!)
    .filter((f) => f.endsWith(".json"))
    .sort();
  let written = 0;
  for (let i = 0; i < files.length && written < count; i += stride) {
    const doc = JSON.parse(readFileSync(join(MASKBENCH!, files[i]!), "utf8")) as {
      schema: unknown;
      tests?: { data: unknown; valid: boolean }[];
    };
    const valid = doc.tests?.find((t) => t.valid);
    if (!valid || pyJson(valid.data).length > maxInstance) continue;
    let gbnf: string;
    try {
      gbnf = convert(doc.schema);
    } catch {
      continue; // a schema the converter refuses is not a grammar-engine case
    }
    const base = files[i]!.replace(/\.json$/, "");
    writeFileSync(join(dir, `${base}.gbnf`), gbnf);
    writeFileSync(join(dir, `${base}.txt`), pyJson(valid.data));
    written++;
  }
  return dir;
}

const TIMEOUT_MS = FULL ? 1_800_000 : 300_000;

describe("grammar engine vs llama.cpp: identical masks", () => {
  it.each(CASES)("$name", { timeout: TIMEOUT_MS }, async (c) => {
    const args = [
      "diff",
      "--vocab",
      vocabPath(c.vocab),
      "--walks",
      String(c.walks),
      "--steps",
      String(c.steps),
      "--seed",
      "7",
      ...(c.extra ?? []),
      ...c.paths,
    ];
    const { code, result, stderr } = await runGrammarTool<DiffResult>(args, TIMEOUT_MS);
    expect(result.divergences, stderr).toEqual([]);
    expect(result.validity_mismatches, stderr).toEqual([]);
    expect(result.grammars).toBeGreaterThanOrEqual(c.minGrammars);
    expect(result.steps).toBeGreaterThan(c.minGrammars * 10);
    if (c.minTruncatedMasks !== undefined) expect(result.truncated_masks).toBeGreaterThanOrEqual(c.minTruncatedMasks);
    if (c.minSuffixMasks !== undefined) expect(result.suffix_masks).toBeGreaterThanOrEqual(c.minSuffixMasks);
    if (c.minReturnedPositions !== undefined) {
      expect(result.returned_positions).toBeGreaterThanOrEqual(c.minReturnedPositions);
    }
    expect(code).toBe(0);
  });

  it("lazy trigger token: nothing masked before it, its text fed to the grammar", { timeout: TIMEOUT_MS }, async () => {
    const vocab = vocabPath("llama-bpe");
    const { result: ids } = await runGrammarTool<number[][]>(["tokenize", "--vocab", vocab, " {"]);
    expect(ids[0]).toHaveLength(1);
    const args = [
      "diff",
      "--vocab",
      vocab,
      "--walks",
      "2",
      "--branch-walks",
      "3",
      "--steps",
      "40",
      "--seed",
      "5",
      "--trigger-token",
      String(ids[0]![0]),
      join(GBNF_FIXTURES, "lazy-token"),
    ];
    const { code, result, stderr } = await runGrammarTool<DiffResult>(args, TIMEOUT_MS);
    expect(result.divergences, stderr).toEqual([]);
    expect(result.validity_mismatches, stderr).toEqual([]);
    expect(result.notes).toEqual([]);
    expect(result.grammars).toBe(1);
    expect(result.steps).toBeGreaterThan(40);
    expect(code).toBe(0);
  });

  it.skipIf(!converter)(
    "MaskBench schemas converted by toolwright's converter, along their valid instances",
    { timeout: FULL ? 1_800_000 : TIMEOUT_MS },
    async () => {
      // npm test: 6 schemas along instances of at most 400 characters. TOOLWRIGHT_GRAMMAR_DIFF_FULL=1: 60
      // schemas, with branch walks (a prefix of the instance, then random tokens) and random walks from the start.
      const dir = FULL ? convertSchemas(converter!, 60, 40) : convertSchemas(converter!, 6, 331, 400);
      const walks = FULL ? ["--walks", "1", "--branch-walks", "1", "--steps", "30", "--seed", "11"] : ["--walks", "0"];
      const args = ["diff", "--vocab", vocabPath("llama-bpe"), ...walks, "--rollbacks", "2", dir];
      const { code, result, stderr } = await runGrammarTool<DiffResult>(args, FULL ? 1_800_000 : TIMEOUT_MS);
      expect(result.divergences, stderr).toEqual([]);
      expect(result.validity_mismatches, stderr).toEqual([]);
      expect(result.grammars).toBeGreaterThanOrEqual(5);
      expect(result.steps).toBeGreaterThan(100);
      expect(code).toBe(0);
    },
  );

  it("rejects exactly the grammars llama.cpp rejects", { timeout: TIMEOUT_MS }, async () => {
    const dir = join(GBNF_FIXTURES, "invalid");
    const files = readdirSync(dir).filter((f) => f.endsWith(".gbnf"));
    const { code, result } = await runGrammarTool<DiffResult>(["diff", "--vocab", vocabPath("llama-spm"), dir]);
    expect(result.validity_mismatches).toEqual([]);
    expect(result.invalid_both).toBe(files.length);
    expect(result.grammars).toBe(0);
    expect(code).toBe(0);
  });
});
