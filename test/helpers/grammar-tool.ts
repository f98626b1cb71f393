// Runs toolwright-grammar-tool (native/grammar/tool, built by CMake next to the addon) for the
// grammar engine tests, and types its JSON output.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const GRAMMAR_TOOL =
  process.env.TOOLWRIGHT_GRAMMAR_TOOL ??
  fileURLToPath(new URL("../../build/bin/toolwright-grammar-tool", import.meta.url));
export const GBNF_FIXTURES = fileURLToPath(new URL("../fixtures/gbnf/", import.meta.url));
export const LLAMA_GRAMMARS = fileURLToPath(new URL("../../deps/llama.cpp/grammars/", import.meta.url));

/** Path of one of llama.cpp's test vocabularies, e.g. vocabPath("llama-bpe"). */
export function vocabPath(name: string): string {
  return fileURLToPath(new URL(`../../deps/llama.cpp/models/ggml-vocab-${name}.gguf`, import.meta.url));
}

/** Throws a message saying how to build the tool when it is missing. */
export function requireGrammarTool(): void {
  if (!existsSync(GRAMMAR_TOOL)) {
    throw new Error(
      `toolwright-grammar-tool not found at ${GRAMMAR_TOOL}. Build it with ` +
        `"cmake --build build --target toolwright-grammar-tool" (build/ is configured by npm run build:native), ` +
        `or point TOOLWRIGHT_GRAMMAR_TOOL at a built binary.`,
    );
  }
}

export interface ToolRun<T> {
  code: number;
  result: T;
  stderr: string;
}

/** Runs the tool and parses the JSON it prints on stdout (its last line). */
export function runGrammarTool<T>(args: string[], timeoutMs = 150_000): Promise<ToolRun<T>> {
  requireGrammarTool();
  return new Promise((resolve, reject) => {
    execFile(GRAMMAR_TOOL, args, { maxBuffer: 64 << 20, timeout: timeoutMs }, (error, stdout, stderr) => {
      const lines = stdout.trim().split("\n");
      const last = lines[lines.length - 1] ?? "";
      let parsed: T;
      try {
        parsed = JSON.parse(last) as T;
      } catch {
        reject(new Error(`toolwright-grammar-tool ${args.join(" ")} printed no JSON (${String(error)}):\n${stderr}`));
        return;
      }
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, result: parsed, stderr });
    });
  });
}

export interface Divergence {
  grammar: string;
  walk?: number;
  step?: number;
  prefix?: string;
  tokens?: { id: number; bytes: string; allowed_by: "ours" | "llama" }[];
}

export interface DiffResult {
  mode: "diff";
  vocab_tokens: number;
  grammars: number;
  invalid_both: number;
  walks: number;
  steps: number;
  /** Our masks made from a warmed-up position's (a truncated state's cached mask and its exits). */
  truncated_masks: number;
  /** ... of which the context's tokens past the exits came from the exits' suffix tree. */
  suffix_masks: number;
  /** Cut positions the warm-up had not masked, masked when a second real state met them. */
  returned_positions: number;
  divergences: Divergence[];
  validity_mismatches: { grammar: string; detail: string }[];
  notes: string[];
}

export interface CheckEntry {
  file: string;
  ok: boolean;
  error?: { message: string; rule: string; line: number; column: number; text: string };
}

export interface TraceStep {
  token: number;
  piece: string;
  n_allowed: number;
  allowed: boolean;
  accepted: boolean;
  /** The mask came from the engine's per-state cache. */
  cached: boolean;
  /** Parser states built while computing the mask. */
  new_states: number;
  /** Prefix-tree nodes the mask's walk stepped over (none for a cached mask). */
  nodes: number;
  /** The parser state before this token, and the cut position masks use for it (null: none). */
  state: number;
  cut: number | null;
  active: boolean;
  accepting: boolean;
}

export interface TraceResult {
  ok: boolean;
  error?: string;
  n_vocab: number;
  steps: TraceStep[];
  final: { accepting: boolean; eog_allowed: boolean; n_accepted: number };
  rollback: null | { ok: boolean; n_accepted: number; active: boolean; accepting: boolean };
}

/** A grammar the checker must reject, and where it must say the error is. */
export interface GrammarErrorCase {
  name: string;
  gbnf: string;
  message: RegExp;
  rule: string;
  line: number; // 0: no single location (whole-grammar checks)
  column: number;
}

/** Runs the tool's `check` over the cases and asserts each one's message, rule, line and column. */
export async function expectGrammarErrors(cases: GrammarErrorCase[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-errors-"));
  const files = cases.map((c, i) => {
    const file = join(dir, `${String(i).padStart(2, "0")}-${c.name.replace(/[^a-z0-9]+/gi, "-")}.gbnf`);
    writeFileSync(file, c.gbnf);
    return file;
  });
  const { result } = await runGrammarTool<CheckEntry[]>(["check", ...files]);
  expect(result).toHaveLength(cases.length);
  cases.forEach((c, i) => {
    const entry = result[i];
    expect(entry?.ok, c.name).toBe(false);
    expect(entry?.error?.message, c.name).toMatch(c.message);
    expect({ rule: entry?.error?.rule, line: entry?.error?.line, column: entry?.error?.column }, c.name).toEqual({
      rule: c.rule,
      line: c.line,
      column: c.column,
    });
  });
}
