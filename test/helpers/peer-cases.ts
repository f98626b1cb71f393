// The peer-parser oracle (../shared/peer-parsers-dev): real model outputs from another serving
// project's tool-parser tests, each mapped to a chat template of its family. Loading, replaying
// through toolwright's own params and parser, and judging only what the peer's test asserts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  ChatStreamParser,
  accumulateDeltas,
  analyzeChatTemplate,
  generateChatParams,
  ToolSchemaError,
  type ChatParams,
} from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { AssistantMessage, ToolDefinition } from "../../src/types.js";
import { TEMPLATES_DIR } from "./analysis-oracle.js";

/** A ratchet set's size and the floor of cases read as the peer asserts. */
export interface RatchetCounts {
  count: number;
  read: number;
}

export interface PeerCall {
  name: string | null;
  arguments: unknown;
  arguments_match: "exact" | "subset" | "contains" | "unasserted";
  arguments_checks?: [(string | number)[], unknown][];
  arguments_contains?: string[];
}

export interface PeerCase {
  id: string;
  family: string;
  template: string;
  request: Record<string, unknown>;
  tools: ToolDefinition[];
  input: string;
  expect: {
    tool_calls_count: "exact" | "at_least";
    tool_calls: PeerCall[];
    content_asserted: string;
    content?: string | null;
    content_contains?: string[];
  };
}

export function loadPeerCases(path: string): PeerCase[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as PeerCase);
}

const analyses = new Map<string, { template: ChatTemplate; analysis: ReturnType<typeof analyzeChatTemplate> }>();

/** The case's request through toolwright's own params (the template analysed once). */
export function peerParams(c: PeerCase, templatesDir: string): ChatParams {
  const name = c.template.replace(/^llama\.cpp:/, "");
  let t = analyses.get(name);
  if (!t) {
    const source = readFileSync(join(templatesDir, name), "utf8");
    const template = new ChatTemplate(source, { compat: "auto" });
    t = { template, analysis: analyzeChatTemplate(source, { template }) };
    analyses.set(name, t);
  }
  return generateChatParams(t.analysis, t.template, {
    messages: [{ role: "user", content: "Please help with my request." }],
    tools: c.tools,
    toolChoice: "auto",
    parallelToolCalls: true,
    ...c.request,
  });
}

/** The output parsed in the given chunks: the final message and what its deltas add up to. */
export function peerReplay(params: ChatParams, chunks: string[]): { message: AssistantMessage; sum: AssistantMessage } {
  const parser = new ChatStreamParser(params, { generateCallId: (i) => `call_${i}` });
  const deltas = chunks.flatMap((c) => parser.feed(c));
  deltas.push(...parser.finish());
  return { message: parser.message(), sum: accumulateDeltas(deltas) };
}

/** `input` cut at pseudo-random points (a fixed seed: the same cuts every run). */
export function peerChunks(input: string, seed: number, maxLen: number): string[] {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  const cps = Array.from(input);
  const out: string[] = [];
  for (let i = 0; i < cps.length; ) {
    const len = 1 + Math.floor(next() * maxLen);
    out.push(cps.slice(i, i + len).join(""));
    i += len;
  }
  return out;
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

function at(v: unknown, path: (string | number)[]): { found: boolean; value?: unknown } {
  let cur = v;
  for (const k of path) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, k)) return { found: false };
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return { found: true, value: cur };
}

/** JSON as Python's json.dumps spaces it (`{"a": 1, "b": [1, 2]}`), which peers' substring checks expect. */
function pythonDumps(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(pythonDumps).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pythonDumps(x)}`)
      .join(", ")}}`;
  return JSON.stringify(v) ?? "";
}

/** What differs from the peer's assertions (empty: the case passes). */
export function peerProblems(c: PeerCase, msg: AssistantMessage): string[] {
  const e = c.expect;
  const calls = msg.tool_calls ?? [];
  const problems: string[] = [];
  const n = e.tool_calls.length;
  if (e.tool_calls_count === "exact" ? calls.length !== n : calls.length < n)
    problems.push(`${calls.length} calls instead of ${e.tool_calls_count === "exact" ? "" : "at least "}${n}`);
  else
    e.tool_calls.forEach((want, i) => {
      const got = calls[i]!;
      if (want.name !== null && want.name !== got.function.name)
        problems.push(`call ${i}: ${got.function.name} instead of ${want.name}`);
      let args: unknown;
      try {
        args = JSON.parse(got.function.arguments || "{}");
      } catch {
        args = undefined;
      }
      if (want.arguments_match === "exact" && !deepEqual(args, want.arguments))
        problems.push(`call ${i}: arguments ${got.function.arguments}`);
      for (const [path, value] of want.arguments_checks ?? []) {
        const g = at(args, path);
        if (!g.found || !deepEqual(g.value, value))
          problems.push(`call ${i}: ${path.join(".")} ${JSON.stringify(g.value)}`);
      }
      const spellings = [got.function.arguments, JSON.stringify(args), pythonDumps(args)];
      for (const text of want.arguments_contains ?? [])
        if (!spellings.some((s) => s.includes(text))) problems.push(`call ${i}: arguments lack ${text}`);
    });
  const content = typeof msg.content === "string" ? msg.content.trim() : "";
  if (e.content_asserted === "equals" && content !== (e.content ?? "").trim())
    problems.push(`content ${JSON.stringify(content)}`);
  if (e.content_asserted === "non-empty" && content === "") problems.push("content empty");
  for (const text of e.content_contains ?? [])
    if (!content.includes(text.trim())) problems.push(`content lacks ${JSON.stringify(text)}`);
  return problems;
}

/** A case read differently from the peer's test: by toolwright's documented rule, or a shape not read yet. */
export interface PeerDifference {
  kind: "by design" | "not read yet";
  reason: string;
}

/** The same difference for several cases, as entries of a DIFFERENCES table. */
export function peerDifferences(
  ids: string[],
  kind: PeerDifference["kind"],
  reason: string,
): Record<string, PeerDifference> {
  return Object.fromEntries(ids.map((id) => [id, { kind, reason }]));
}

/**
 * The suite of one set of peer cases: every case passes, or is in `differences` with the reason (a
 * stale entry fails); whatever the verdict, every chunking gives the same message, and the deltas add up to it.
 */
export function describePeerCases(
  title: string,
  cases: PeerCase[],
  count: number,
  differences: Record<string, PeerDifference>,
  templatesDir: string,
): void {
  describe(title, () => {
    it(`reads all ${count} cases`, () => {
      expect(cases).toHaveLength(count);
    });

    it.each(cases.map((c) => ({ label: `${c.id} (${c.family})`, c })))("$label", ({ c }) => {
      const params = peerParams(c, templatesDir);
      const whole = peerReplay(params, [c.input]);
      const problems = peerProblems(c, whole.message);
      if (differences[c.id] === undefined) expect(problems).toEqual([]);
      else expect(problems.length, `stale difference entry: ${c.id} now passes`).toBeGreaterThan(0);
      expect(whole.sum).toEqual(whole.message);
      for (const [seed, max] of [
        [7, 3],
        [11, 8],
        [13, 24],
      ] as const) {
        const streamed = peerReplay(params, peerChunks(c.input, seed, max));
        expect(streamed.message, `chunks (seed ${seed})`).toEqual(whole.message);
        expect(streamed.sum, `deltas (seed ${seed})`).toEqual(whole.message);
      }
    });

    it("every difference names a case and gives a reason", () => {
      for (const [id, entry] of Object.entries(differences)) {
        expect(
          cases.some((c) => c.id === id),
          id,
        ).toBe(true);
        expect(entry.reason.length).toBeGreaterThan(20);
      }
    });
  });
}

/**
 * A case's params, or null where the request is refused for a tool schema no JSON Schema validator takes
 * (a peer's test declaring `"type": "str"`): refused with the documented error class, anything else throws.
 */
function refusedOrParams(c: PeerCase, templatesDir: string): ChatParams | null {
  try {
    return peerParams(c, templatesDir);
  } catch (e) {
    if (e instanceof ToolSchemaError) return null;
    throw e;
  }
}

/**
 * The suite of a set of peer cases not yet classified one by one (`test/fixtures/peer-outputs/FIXTURE.jsonl`):
 * it holds `count` cases, every chunking gives the whole parse and the deltas add up to it, and at least `read`
 * cases read as the peer's tests assert (a drop names the cases). `read` may only go up, unless a reading that
 * peers split on lowers it; the test file then says which case and why.
 */
export function describePeerRatchet(fixture: string, source: string, { count, read }: RatchetCounts): void {
  const cases = loadPeerCases(fileURLToPath(new URL(`../fixtures/peer-outputs/${fixture}.jsonl`, import.meta.url)));
  const templatesDir = TEMPLATES_DIR;
  describe(`${source}: real outputs through toolwright's params and parser`, () => {
    it(`reads all ${count} cases`, () => {
      expect(cases).toHaveLength(count);
    });

    it(`reads at least ${read} as the peer's tests assert`, () => {
      const differ = cases.filter((c) => {
        const params = refusedOrParams(c, templatesDir);
        return params === null || peerProblems(c, peerReplay(params, [c.input]).message).length > 0;
      });
      expect(count - differ.length, `read differently: ${differ.map((c) => c.id).join(" ")}`).toBeGreaterThanOrEqual(
        read,
      );
    });

    it.each(cases.map((c) => ({ label: `${c.id} (${c.family})`, c })))("$label: whole and in chunks alike", ({ c }) => {
      const params = refusedOrParams(c, templatesDir);
      if (params === null) return;
      const whole = peerReplay(params, [c.input]);
      expect(whole.sum).toEqual(whole.message);
      const streamed = peerReplay(params, peerChunks(c.input, 7, 5));
      expect(streamed.message).toEqual(whole.message);
      expect(streamed.sum).toEqual(whole.message);
    });
  });
}
