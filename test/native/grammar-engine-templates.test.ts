// Differential test of our GBNF engine against llama.cpp's on the tool-call grammars the chat
// layer generates: for every template that renders tool calls, generateChatParams with two tools,
// tool_choice "required" and "auto" (lazy), thinking off and on. Each grammar goes to
// toolwright-grammar-tool with the lazy triggers the runtime would use (chatGrammar) and the
// template's own rendering of tool calls as valid texts; both engines then walk those texts,
// branches off them (a random prefix, then random tokens) and random walks, and their masks must be
// identical at every step.
//
// CI runs a deterministic sample of the distinct grammars; TOOLWRIGHT_GRAMMAR_DIFF_FULL=1 runs
// them all (several minutes more).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateChatParams, type ChatParams } from "../../src/chat/index.js";
import { chatGrammar } from "../../src/session/grammar.js";
import type { Model } from "../../src/runtime/model.js";
import { SCENARIOS, TOOLS, USER, generatedPart, type TemplateCase, toolTemplates } from "../helpers/chat-roundtrip.js";
import { type DiffResult, runGrammarTool, vocabPath } from "../helpers/grammar-tool.js";

const FULL = process.env.TOOLWRIGHT_GRAMMAR_DIFF_FULL === "1";
// Qwen2's vocabulary has the special tokens many formats use (<tool_call>, <think>, ...).
const VOCAB = "qwen2";
const TIMEOUT_MS = FULL ? 1_800_000 : 400_000;

interface Variant {
  toolChoice: "required" | "auto";
  enableThinking: boolean;
}
const VARIANTS: Variant[] = [
  { toolChoice: "required", enableThinking: false },
  { toolChoice: "auto", enableThinking: false },
  { toolChoice: "required", enableThinking: true },
  { toolChoice: "auto", enableThinking: true },
];
// Scenarios whose rendering is a valid text for a tool-call grammar (no content before the call).
const TEXT_SCENARIOS = SCENARIOS.filter((s) => s.name === "one call" || s.name === "unicode, quotes, newlines");

interface GrammarEntry {
  label: string;
  params: ChatParams;
  texts: string[];
}

/** Every distinct (grammar, triggers) the chat layer generates, with the texts it must accept. */
function templateGrammars(templates: TemplateCase[]): GrammarEntry[] {
  const seen = new Map<string, GrammarEntry>();
  for (const t of templates) {
    for (const v of VARIANTS) {
      const params = generateChatParams(t.analysis, t.template, {
        messages: [USER],
        tools: TOOLS,
        toolChoice: v.toolChoice,
        enableThinking: v.enableThinking,
      });
      if (params.grammar === null) continue;
      const key = JSON.stringify([
        params.grammar,
        params.grammarLazy,
        params.grammarTriggers,
        params.thinkingForcedOpen,
        params.reasoningEnd,
      ]);
      const entry = seen.get(key) ?? {
        label: `${t.name} ${v.toolChoice} thinking-${v.enableThinking ? "on" : "off"}`,
        params,
        texts: [],
      };
      seen.set(key, entry);
      for (const s of TEXT_SCENARIOS) {
        const g = generatedPart(t, { ...s, enableThinking: v.enableThinking }, params);
        if ("output" in g && !entry.texts.includes(g.output)) entry.texts.push(g.output);
      }
    }
  }
  return [...seen.values()];
}

/** Trigger-token texts resolved by the real vocabulary (special tokens parsed), as Model.tokenize does. */
async function tokenizer(entries: GrammarEntry[]): Promise<Pick<Model, "tokenize">> {
  const texts = [
    ...new Set(entries.flatMap((e) => e.params.grammarTriggers.filter((t) => t.type === "token").map((t) => t.value))),
  ];
  const ids = texts.length
    ? (await runGrammarTool<number[][]>(["tokenize", "--vocab", vocabPath(VOCAB), ...texts])).result
    : [];
  const byText = new Map(texts.map((t, i) => [t, ids[i]!]));
  return {
    tokenize: (text: string) => {
      const found = byText.get(text);
      if (!found) throw new Error(`no token ids for trigger ${JSON.stringify(text)}`);
      return Int32Array.from(found);
    },
  } as unknown as Pick<Model, "tokenize">;
}

/** Writes NAME.gbnf, NAME.txt (texts separated by "\n\x1e\n") and NAME.lazy into a fresh directory. */
function writeCases(entries: GrammarEntry[], model: Pick<Model, "tokenize">): { dir: string; lazy: number } {
  const dir = mkdtempSync(join(tmpdir(), "tw-gbnf-templates-"));
  let lazy = 0;
  entries.forEach((e, i) => {
    const base = join(dir, `${String(i).padStart(3, "0")}-${e.label.replace(/[^a-z0-9]+/gi, "-")}`);
    const options = chatGrammar(
      e.params.grammarPlan,
      (text) => model.tokenize(text, { addSpecial: false, parseSpecial: true }),
      undefined,
    )!;
    writeFileSync(`${base}.gbnf`, options.gbnf);
    if (e.texts.length) writeFileSync(`${base}.txt`, e.texts.join("\n\x1e\n"));
    if (options.lazy) {
      lazy++;
      // One trigger per line: a pattern's literal line breaks become the \n / \r escapes.
      const lines = [
        ...(options.lazy.patterns ?? []).map((p) => `pattern ${p.replace(/\n/g, "\\n").replace(/\r/g, "\\r")}`),
        ...[...(options.lazy.tokens ?? [])].map((id) => `token ${id}`),
      ];
      writeFileSync(`${base}.lazy`, `${lines.join("\n")}\n`);
    }
  });
  return { dir, lazy };
}

/** `n` entries spread evenly over `items` (deterministic). */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step + step / 2)]!);
}

/** The CI sample: lazy grammars (some deferred past forced-open reasoning) and strict ones. */
function sample(entries: GrammarEntry[]): GrammarEntry[] {
  const deferred = entries.filter((e) => e.params.thinkingForcedOpen);
  const lazy = entries.filter((e) => e.params.grammarLazy && !e.params.thinkingForcedOpen);
  const strict = entries.filter((e) => !e.params.grammarLazy);
  // Small enough to stay far inside its timeout on a loaded 2-core machine (each grammar's masks
  // run over the whole 152k-token vocabulary in both engines).
  return [...spread(deferred, 2), ...spread(lazy, 3), ...spread(strict, 3)];
}

const all = templateGrammars(toolTemplates());

describe("grammar engine vs llama.cpp on the chat layer's tool-call grammars", () => {
  it("generates lazy and strict grammars from every template, with texts", () => {
    expect(all.length).toBeGreaterThanOrEqual(40);
    expect(all.filter((e) => e.params.grammarLazy).length).toBeGreaterThanOrEqual(15);
    expect(all.filter((e) => !e.params.grammarLazy).length).toBeGreaterThanOrEqual(15);
    expect(all.filter((e) => e.params.thinkingForcedOpen).length).toBeGreaterThanOrEqual(5);
    expect(all.filter((e) => e.texts.length === 0).map((e) => e.label)).toEqual([]);
  });

  it(`identical masks along texts, branches and random walks (${FULL ? "all" : "sampled"} grammars)`, {
    timeout: TIMEOUT_MS,
  }, async () => {
    const entries = FULL ? all : sample(all);
    const { dir, lazy } = writeCases(entries, await tokenizer(entries));
    expect(lazy).toBeGreaterThan(0);
    const args = [
      "diff",
      "--vocab",
      vocabPath(VOCAB),
      "--special-texts",
      "--walks",
      FULL ? "3" : "1",
      "--branch-walks",
      FULL ? "3" : "1",
      "--steps",
      FULL ? "40" : "10",
      "--rollbacks",
      "2",
      "--seed",
      "11",
      dir,
    ];
    const { code, result, stderr } = await runGrammarTool<DiffResult>(args, TIMEOUT_MS);
    expect(result.divergences, stderr).toEqual([]);
    expect(result.validity_mismatches, stderr).toEqual([]);
    expect(result.grammars).toBe(entries.length);
    // The texts are valid: no walk along one is cut short by both engines.
    expect(result.notes.filter((n) => n.includes("rejected by both"))).toEqual([]);
    expect(result.steps).toBeGreaterThan(entries.length * 20);
    expect(code).toBe(0);
  });
});
