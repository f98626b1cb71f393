// `toolwright chat`'s flags that map to chat() options, and its error messages: where chat() names
// an option the user set with a flag, the message names the flag (`--max-tokens`, not
// `options.maxTokens`). The errors are chat()'s own, from its option checks.
import { describe, expect, it } from "vitest";
import { CHAT_USAGE, parseChatArgs } from "../../src/cli/chat.js";
import { parseServeArgs, SERVE_USAGE } from "../../src/cli/serve.js";
import { CHAT_FLAG_OF_OPTION, flagMessage } from "../../src/cli/chat-flags.js";
import { UsageError } from "../../src/cli/args.js";
import { DEFAULT_MAX_TOKENS } from "../../src/session/index.js";
import { fitPrompt } from "../../src/session/context-fit.js";
import { planChat } from "../../src/session/options.js";

const messages = [{ role: "user" as const, content: "Hi" }];

/** The message chat() throws for `options` (before any model work). */
function chatError(options: Record<string, unknown>): string {
  try {
    planChat({ messages, ...options }, "streamChat");
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`planChat accepted ${JSON.stringify(options)}`);
}

/** The message of a conversation that outgrows a 16-token context (overflow "error"). */
async function overflowError(): Promise<string> {
  const render = async (m: unknown[]) => ({ params: null, tokens: new Int32Array(10 * m.length) });
  const limits = {
    contextSize: 16,
    reserve: 4,
    overflow: "error" as const,
    where: "streamChat",
    trainContextSize: 4096,
  };
  const err = await fitPrompt([...messages, ...messages], render, limits).catch((e: unknown) => e);
  return (err as Error).message;
}

describe("toolwright chat's messages name the flags", () => {
  const CASES: { label: string; message: () => string; expected: RegExp }[] = [
    { label: "--max-tokens", message: () => chatError({ maxTokens: 0 }), expected: /^--max-tokens must be an integer/ },
    { label: "--template", message: () => chatError({ template: " " }), expected: /^--template must not be empty$/ },
    {
      label: "--context-overflow",
      message: () => chatError({ contextOverflow: "drop" }),
      expected: /^--context-overflow must be "error" or "truncate-oldest"/,
    },
    {
      label: "--tools, with the path inside the file",
      message: () => chatError({ tools: [{ type: "function", function: { name: "f", parameters: 5 } }] }),
      expected: /^--tools \(tools\[0\]\.function\.parameters\) must be a JSON Schema/,
    },
    {
      label: "--json-schema",
      message: () => chatError({ responseFormat: { type: "json_schema", json_schema: { schema: () => 1 } } }),
      expected: /^--json-schema \(responseFormat\.json_schema\.schema\) must be/,
    },
    {
      label: "--template, where the model has none",
      message: () => "chat: the model has no chat template; pass options.template",
      expected: /^the model has no chat template; pass --template$/,
    },
    {
      label: "an option no flag sets (left as chat() wrote it)",
      message: () => chatError({ maxSteps: 0 }),
      expected: /^options\.maxSteps must be an integer/,
    },
  ];
  it.each(CASES)("$label", ({ message, expected }) => {
    const text = message();
    expect(text).toMatch(/options\./);
    expect(flagMessage(text, CHAT_FLAG_OF_OPTION)).toMatch(expected);
  });

  it("options named bare in a remedy: a conversation longer than --context-size", async () => {
    const text = await overflowError();
    expect(text).toMatch(/\(contextSize\); pass a larger contextSize .* or pass contextOverflow: "truncate-oldest"/);
    const named = flagMessage(text, CHAT_FLAG_OF_OPTION);
    expect(named).toMatch(/^the prompt needs \d+ tokens .* holds 16 \(--context-size\); pass a larger --context-size /);
    expect(named).toMatch(/ or pass --context-overflow truncate-oldest to drop the oldest turns$/);
  });

  it("every flag the table names is one of the command's", () => {
    for (const flag of Object.values(CHAT_FLAG_OF_OPTION)) expect(CHAT_USAGE).toContain(`  ${flag}`);
  });
});

describe("toolwright chat flags", () => {
  it("--context-overflow: error or truncate-oldest", () => {
    expect(parseChatArgs(["m.gguf", "--context-overflow", "truncate-oldest"])).toMatchObject({
      contextOverflow: "truncate-oldest",
    });
    expect(parseChatArgs(["m.gguf"])).not.toHaveProperty("contextOverflow");
    expect(() => parseChatArgs(["m.gguf", "--context-overflow", "oldest"])).toThrow(UsageError);
    expect(() => parseChatArgs(["m.gguf", "--context-overflow", "oldest"])).toThrow(
      /--context-overflow must be error or truncate-oldest, got "oldest"/,
    );
  });

  it.each<[string[], boolean | undefined]>([
    [["--flash-attention", "off"], false],
    [["--flash-attention=on"], true],
    [["--flash-attention", "auto"], undefined],
    [[], undefined],
  ])("--flash-attention %j: flashAttention %s", (argv, expected) => {
    const args = parseChatArgs(["m.gguf", ...argv]);
    if (expected === undefined) expect(args).not.toHaveProperty("flashAttention");
    else expect(args).toMatchObject({ flashAttention: expected });
  });

  it("--flash-attention takes on, off or auto", () => {
    expect(() => parseChatArgs(["m.gguf", "--flash-attention", "yes"])).toThrow(UsageError);
    expect(() => parseChatArgs(["m.gguf", "--flash-attention", "yes"])).toThrow(
      /--flash-attention must be on, off or auto, got "yes"/,
    );
  });

  it("--max-tokens defaults to chat()'s one default, as the help says", () => {
    expect(planChat({ messages }, "chat").maxTokens).toBe(DEFAULT_MAX_TOKENS);
    expect(DEFAULT_MAX_TOKENS).toBe(1024);
    expect(CHAT_USAGE).toMatch(
      new RegExp(`--max-tokens N +most tokens per answer \\(default ${DEFAULT_MAX_TOKENS}\\)`),
    );
  });
});

describe("--lora FILE[:SCALE] (chat and serve)", () => {
  const CASES: { argv: string[]; loras: { path: string; scale: number }[] }[] = [
    { argv: [], loras: [] },
    { argv: ["--lora", "style.gguf"], loras: [{ path: "style.gguf", scale: 1 }] },
    { argv: ["--lora", "style.gguf:0.5"], loras: [{ path: "style.gguf", scale: 0.5 }] },
    {
      argv: ["--lora", "a.gguf:-1", "--lora", "b.gguf:2e-1"],
      loras: [
        { path: "a.gguf", scale: -1 },
        { path: "b.gguf", scale: 0.2 },
      ],
    },
    { argv: ["--lora", "C:\\adapters\\tone.gguf"], loras: [{ path: "C:\\adapters\\tone.gguf", scale: 1 }] },
    { argv: ["--lora", "C:\\adapters\\tone.gguf:.25"], loras: [{ path: "C:\\adapters\\tone.gguf", scale: 0.25 }] },
    { argv: ["--lora", "odd:name.gguf"], loras: [{ path: "odd:name.gguf", scale: 1 }] },
  ];
  it.each(CASES)("$argv", ({ argv, loras }) => {
    const chat = parseChatArgs(["model.gguf", ...argv]);
    expect(chat !== "help" && chat.loras).toEqual(loras);
    const serve = parseServeArgs(["model.gguf", ...argv]);
    expect(serve !== "help" && serve.loras).toEqual(loras);
  });

  it.each([[":0.5"], [""]])("%j is a usage error naming --lora", (value) => {
    expect(() => parseChatArgs(["model.gguf", "--lora", value])).toThrow(UsageError);
    expect(() => parseChatArgs(["model.gguf", "--lora", value])).toThrow(/--lora/);
  });

  it("both usages list the flag", () => {
    expect(CHAT_USAGE).toContain("--lora FILE[:SCALE]");
    expect(SERVE_USAGE).toContain("--lora FILE[:SCALE]");
  });
});

describe("--draft-model, --lookup, --draft-max (chat and serve)", () => {
  it.each([
    { argv: [], speculative: { lookup: false } },
    { argv: ["--lookup"], speculative: { lookup: true } },
    {
      argv: ["--draft-model", "small.gguf", "--draft-max", "16"],
      speculative: { lookup: false, draftModel: "small.gguf", draftMax: 16 },
    },
  ])("$argv", ({ argv, speculative }) => {
    const chat = parseChatArgs(["model.gguf", ...argv]);
    expect(chat !== "help" && chat.speculative).toEqual(speculative);
    const serve = parseServeArgs(["model.gguf", ...argv]);
    expect(serve !== "help" && serve.speculative).toEqual(speculative);
  });

  it("both usages list the flags", () => {
    for (const usage of [CHAT_USAGE, SERVE_USAGE]) {
      expect(usage).toContain("--draft-model FILE");
      expect(usage).toContain("--lookup");
      expect(usage).toContain("--draft-max N");
      expect(usage).toContain("--draft-p-min P");
    }
  });
});
