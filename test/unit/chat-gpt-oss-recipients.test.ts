// GPT-OSS messages to recipients that are not declared tools (see the gpt-oss handler): a call to
// a function the request does not declare (`to=functions.NAME`, a misspelled or unknown NAME),
// built-in recipients (browser.*, python, container.*), and any call when no tools are in use,
// are no call (docs/reading-output.md): the message's text is content, reasoning kept (llama.cpp
// drops it; toolwright loses nothing the model wrote). Whole and streamed parsing agree; no
// grammar allows an undeclared recipient.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  analyzeChatTemplate,
  ChatStreamParser,
  accumulateDeltas,
  generateChatParams,
  parseChatOutput,
  type ChatParams,
  type ChatRequest,
} from "../../src/chat/index.js";
import { matchGbnf } from "../../src/grammar/gbnf-match.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { TOOLS, USER } from "../helpers/chat-roundtrip.js";
import { fromTrigger } from "../helpers/grammar-input.js";

const source = readFileSync(join(TEMPLATES_DIR, "openai-gpt-oss-120b.jinja"), "utf8");
const template = new ChatTemplate(source);
const analysis = analyzeChatTemplate(source, { template });
const params = (request: Partial<ChatRequest> = {}): ChatParams =>
  generateChatParams(analysis, template, { messages: [USER], tools: TOOLS, ...request });
const ids = { generateCallId: (i: number) => `id${i}` };

const THINK = "<|channel|>analysis<|message|>Let me look.<|end|><|start|>assistant";

interface RecipientCase {
  name: string;
  request: Partial<ChatRequest>;
  output: string;
  calls: { name: string; arguments: string }[];
}

const CASES: RecipientCase[] = [
  {
    name: "misspelled function, role header",
    request: {},
    output: `${THINK} to=functions.get_wether<|channel|>commentary json<|message|>{"city": "Paris"}`,
    calls: [],
  },
  {
    name: "undeclared function, channel header",
    request: {},
    output: `${THINK}<|channel|>commentary to=functions.lookup <|constrain|>json<|message|>{"q": 1}`,
    calls: [],
  },
  {
    name: "undeclared function, tool_choice required",
    request: { toolChoice: "required" },
    output: ` to=functions.lookup<|channel|>commentary json<|message|>{}`,
    calls: [],
  },
  {
    name: "built-in browser.search",
    request: {},
    output: `${THINK} to=browser.search<|channel|>commentary json<|message|>{"query": "Paris"}<|call|>`,
    calls: [],
  },
  {
    name: "built-in python",
    request: {},
    output: `${THINK}<|channel|>commentary to=python <|constrain|>code<|message|>print("hello")`,
    calls: [],
  },
  {
    name: "built-in container.exec, no tools",
    request: { tools: [] },
    output: `${THINK} to=container.exec<|channel|>commentary<|message|>ls -l`,
    calls: [],
  },
  {
    name: "a function call when no tools are in use",
    request: { tools: [] },
    output: `${THINK} to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}`,
    calls: [],
  },
  {
    name: "a function call with tool_choice none",
    request: { toolChoice: "none" },
    output: `${THINK} to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}`,
    calls: [],
  },
];

function streamed(p: ChatParams, output: string) {
  const s = new ChatStreamParser(p, ids);
  const deltas = [...output].flatMap((c) => s.feed(c));
  deltas.push(...s.finish());
  return accumulateDeltas(deltas);
}

describe("GPT-OSS: recipients that are not declared tools", () => {
  it.each(CASES)("$name", ({ request, output, calls }) => {
    const p = params(request);
    const msg = parseChatOutput(p, output, ids);
    expect((msg.tool_calls ?? []).map((c) => c.function)).toEqual(calls);
    // A call is never also content; a message that is no call is content as written.
    const written = output.slice(output.startsWith(THINK) ? THINK.length : 0).replace(/<\|call\|>$/, "");
    expect(msg.content ?? "").toBe(calls.length > 0 ? "" : written.trim());
    if (output.startsWith(THINK)) expect(msg.reasoning_content).toBe("Let me look.");
    expect(streamed(p, output)).toEqual(msg);
  });
});

describe("GPT-OSS: no grammar allows an undeclared recipient", () => {
  const recipients = ["functions.get_wether", "functions.lookup", "browser.search", "python"];
  it.each(recipients)("%s", (recipient) => {
    const call = (to: string) => ` to=${to}<|channel|>commentary json<|message|>{"city": "Paris"}`;
    const required = params({ toolChoice: "required", enableThinking: false });
    expect(matchGbnf(required.grammar!, call("functions.get_weather")).ok).toBe(true);
    expect(matchGbnf(required.grammar!, call(recipient)).ok).toBe(false);
    const auto = params({ toolChoice: "auto" });
    const from = fromTrigger(call(recipient), auto.grammarTriggers);
    if (from !== null) expect(matchGbnf(auto.grammar!, from).ok).toBe(false);
  });
});
