// Fuzz target: the streaming chat parser (src/chat/chat-parser.ts over src/peg/ and the mapper) with
// parsers built from real templates. The input is one byte choosing the template (and parallel
// calls), one byte seeding the chunking, then a model's output. Findings: any exception (the parser
// never throws on model output: what does not match the format is content), and any difference
// between the whole-text parse and the streamed one (the message and the sum of its deltas), which
// ChatStreamParser promises are equal however the text is split.
import { join } from "node:path";
import { accumulateDeltas, ChatStreamParser, generateChatParams, parseChatOutput } from "../../../src/chat/index.js";
import type { ChatParams } from "../../../src/chat/index.js";
import {
  generatedPart,
  SCENARIOS,
  scenarioFor,
  type TemplateCase,
  TOOLS,
  toolTemplates,
  USER,
} from "../../../test/helpers/chat-roundtrip.js";
import { InvariantBroken, seeded } from "../expect.js";

/** Templates of distinct formats: JSON calls, tagged calls, XML-ish arguments, channels, reasoning. */
const TEMPLATES = [
  "meta-llama-Llama-3.1-8B-Instruct.jinja",
  "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
  "Qwen-Qwen3-0.6B.jinja",
  "Qwen3-Coder.jinja",
  "mistralai-Mistral-Nemo-Instruct-2407.jinja",
  "moonshotai-Kimi-K2.jinja",
  "openai-gpt-oss-120b.jinja",
  "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
];

interface Case {
  name: string;
  template: TemplateCase;
  params: ChatParams;
}

let cases: Case[] | undefined;

function allCases(root: string): Case[] {
  if (cases === undefined) {
    const dir = join(root, "deps/llama.cpp/models/templates");
    cases = toolTemplates(dir, (f) => TEMPLATES.includes(f)).flatMap((t) =>
      [false, true].map((parallelToolCalls) => ({
        name: `${t.name}${parallelToolCalls ? "+parallel" : ""}`,
        template: t,
        params: generateChatParams(t.analysis, t.template, { messages: [USER], tools: TOOLS, parallelToolCalls }),
      })),
    );
  }
  return cases;
}

const ids = { generateCallId: (i: number) => `call${i}` };

/** Streams `text` in chunks of 1..max code points (max from the seed), then finishes. */
function streamed(params: ChatParams, text: string, seed: number): { message: string; deltas: string } {
  const next = seeded(seed + 1);
  const max = 1 + (seed % 8);
  const chars = Array.from(text);
  const s = new ChatStreamParser(params, ids);
  const deltas = [];
  for (let i = 0; i < chars.length; ) {
    const k = 1 + Math.floor(next() * max);
    deltas.push(...s.feed(chars.slice(i, i + k).join("")));
    i += k;
  }
  deltas.push(...s.finish());
  return { message: JSON.stringify(s.message()), deltas: JSON.stringify(accumulateDeltas(deltas)) };
}

export function fuzz(data: Buffer): void {
  if (data.length < 2) return;
  const all = allCases(process.cwd());
  const c = all[data[0]! % all.length]!;
  const text = data.subarray(2).toString("utf8");
  const whole = JSON.stringify(parseChatOutput(c.params, text, ids));
  const s = streamed(c.params, text, data[1]!);
  if (s.message !== whole || s.deltas !== whole) {
    throw new InvariantBroken(
      `${c.name}: streamed differs from whole for ${JSON.stringify(text)}\n` +
        `  whole    ${whole}\n  streamed ${s.message}\n  deltas   ${s.deltas}`,
    );
  }
}

/** Each template's own rendering of every call scenario (what a model trained on it writes). */
export function seeds(root: string): [string, Uint8Array][] {
  const all = allCases(root);
  const out: [string, Uint8Array][] = [];
  all.forEach((c, index) => {
    SCENARIOS.forEach((scenario, k) => {
      const g = generatedPart(c.template, scenarioFor(c.template, scenario), c.params);
      if (!("output" in g)) return;
      const bytes = Buffer.concat([Buffer.from([index, k * 37]), Buffer.from(g.output, "utf8")]);
      out.push([`${c.name}-${k}`, bytes]);
    });
  });
  return out;
}
