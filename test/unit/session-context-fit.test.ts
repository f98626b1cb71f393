/**
 * What a chat does when its prompt outgrows the context (src/session/context-fit.ts): an error
 * naming both sizes and the remedies, or, with "truncate-oldest", the oldest turns left out
 * while the system prompt and the latest turn stay, and a tool call never loses its results.
 * The render is a real chat template (ChatML), and a "token" is a character of its output.
 */
import { describe, expect, it } from "vitest";
import { ContextOverflowError } from "../../src/runtime/errors.js";
import { fitPrompt, splitTurns } from "../../src/session/context-fit.js";
import { checkSessionOptions, planChat } from "../../src/session/options.js";
import { ChatTemplate } from "../../src/template/index.js";
import type { ChatMessage } from "../../src/types.js";

const chatml = new ChatTemplate(
  "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content if m.content is string else '' }}{% if " +
    "m.tool_calls %}{{ m.tool_calls | tojson }}{% endif %}<|im_end|>\n{% endfor " +
    "%}<|im_start|>assistant\n",
);

/** Renders with the template; one token per character. Records what it was given. */
function recordingRender() {
  const seen: ChatMessage[][] = [];
  const render = async (messages: ChatMessage[]) => {
    seen.push(messages);
    const prompt = chatml.render({ messages, addGenerationPrompt: true });
    return { params: { prompt, messages }, tokens: new Int32Array(prompt.length) };
  };
  return { render, seen };
}

const system: ChatMessage = { role: "system", content: "You answer briefly." };
const call = (id: string): ChatMessage => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", function: { name: "lookup", arguments: `{"q":"${id}"}` } }],
});
const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: `result ${id} `.repeat(8) });
const long = (text: string) => text.repeat(12);

/** system, then 6 turns; turn 2 is a tool round (call, result, answer). */
const history: ChatMessage[] = [
  system,
  { role: "user", content: long("first question ") },
  { role: "assistant", content: long("first answer ") },
  { role: "user", content: long("second question ") },
  call("c1"),
  result("c1"),
  { role: "assistant", content: long("second answer ") },
  { role: "user", content: long("third question ") },
  { role: "assistant", content: long("third answer ") },
  { role: "user", content: long("fourth question ") },
  { role: "assistant", content: long("fourth answer ") },
  { role: "user", content: "latest question" },
];

const limits = (contextSize: number, overflow: "error" | "truncate-oldest", reserve = 0) => ({
  contextSize,
  reserve,
  overflow,
  where: "chat",
  trainContextSize: 32768,
});

describe("splitTurns", () => {
  it("keeps leading system messages apart and starts a turn at each user message", () => {
    const { head, turns } = splitTurns(history);
    expect(head).toEqual([system]);
    expect(turns.map((t) => t.map((m) => m.role))).toEqual([
      ["user", "assistant"],
      ["user", "assistant", "tool", "assistant"],
      ["user", "assistant"],
      ["user", "assistant"],
      ["user"],
    ]);
  });
});

describe("fitPrompt", () => {
  it("returns the whole prompt when it fits, dropping nothing", async () => {
    const { render } = recordingRender();
    const whole = (await render(history)).tokens.length;
    const fitted = await fitPrompt(history, render, limits(whole + 1, "error"));
    expect(fitted.droppedMessages).toBe(0);
    expect(fitted.tokens.length).toBe(whole);
  });

  it('"error": a ContextOverflowError naming the tokens needed, the context size and the remedies', async () => {
    const { render } = recordingRender();
    const whole = (await render(history)).tokens.length;
    const err = await fitPrompt(history, render, limits(whole, "error")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_CONTEXT_OVERFLOW", needed: whole + 1, contextSize: whole });
    expect((err as Error).message).toContain(`needs ${whole + 1} tokens`);
    expect((err as Error).message).toContain(`holds ${whole} (contextSize)`);
    expect((err as Error).message).toMatch(
      /larger contextSize \(the model was trained for 32768\).*contextOverflow: "truncate-oldest"/,
    );
  });

  it('"truncate-oldest" drops the fewest oldest turns that leave `reserve`; system and last turn stay', async () => {
    const { render, seen } = recordingRender();
    const whole = (await render(history)).tokens.length;
    const withoutFirst = (await render([system, ...history.slice(3)])).tokens.length;
    const reserve = 10;
    // Room for everything but the first turn (and the reserve).
    const fitted = await fitPrompt(history, render, limits(withoutFirst + reserve, "truncate-oldest", reserve));
    expect(whole).toBeGreaterThan(withoutFirst + reserve);
    expect(fitted.droppedMessages).toBe(2);
    expect(fitted.tokens.length).toBe(withoutFirst);
    const kept = (fitted.params as { messages: ChatMessage[] }).messages;
    expect(kept[0]).toEqual(system);
    expect(kept.at(-1)).toEqual(history.at(-1));
    expect(seen.length).toBeGreaterThan(1);
  });

  it("never separates a tool call from its results: every prompt tried starts at a user message", async () => {
    const { render, seen } = recordingRender();
    const { turns } = splitTurns(history);
    for (let size = 200; size < 1200; size += 37) {
      seen.length = 0;
      const fitted = await fitPrompt(history, render, limits(size, "truncate-oldest", 5)).catch((e: unknown) => e);
      if (fitted instanceof ContextOverflowError) continue;
      for (const messages of seen) {
        expect(messages[0]).toEqual(system);
        const rest = messages.slice(1);
        // What is kept is a suffix of whole turns.
        const starts = turns.map((_, i) => turns.slice(i).flat());
        expect(starts.some((s) => JSON.stringify(s) === JSON.stringify(rest))).toBe(true);
        for (const m of rest)
          if (m.role === "tool")
            expect(rest.some((a) => a.role === "assistant" && a.tool_calls?.some((c) => c.id === m.tool_call_id))).toBe(
              true,
            );
      }
    }
  });

  it('"truncate-oldest": when even the latest turn does not fit, the error says so', async () => {
    const { render } = recordingRender();
    const latestOnly = (await render([system, history.at(-1)!])).tokens.length;
    const err = await fitPrompt(history, render, limits(latestOnly, "truncate-oldest")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect((err as Error).message).toMatch(/latest turn alone do not fit/);
    expect(err).toMatchObject({ needed: latestOnly + 1, contextSize: latestOnly });
  });

  it('"truncate-oldest" with no room for the reserve keeps what still fits (the latest turn)', async () => {
    const { render } = recordingRender();
    const latestOnly = (await render([system, history.at(-1)!])).tokens.length;
    const fitted = await fitPrompt(history, render, limits(latestOnly + 1, "truncate-oldest", 500));
    expect(fitted.droppedMessages).toBe(history.length - 2);
    expect(fitted.tokens.length).toBe(latestOnly);
  });
});

describe("contextSize and contextOverflow options", () => {
  const user = { role: "user", content: "Hi" } as const;
  it.each([
    [
      { contextSize: 0 },
      RangeError,
      /options\.contextSize must be an integer in \[1, 16777216\], got 0|options\.contextSize/,
    ],
    [{ contextSize: "big" }, RangeError, /options\.contextSize must be a number of tokens or "auto", got "big"/],
    [{ contextSize: 1.5 }, RangeError, /options\.contextSize/],
    [
      { contextOverflow: "drop" },
      RangeError,
      /options\.contextOverflow must be "error" or "truncate-oldest", got "drop"/,
    ],
    [{ contextOverflow: true }, RangeError, /options\.contextOverflow must be "error" or "truncate-oldest", got true/],
  ])("chat %j is rejected", (extra, type, message) => {
    expect(() => planChat({ messages: [user], ...extra }, "chat")).toThrow(type);
    expect(() => planChat({ messages: [user], ...extra }, "chat")).toThrow(message);
  });

  it("valid values are planned", () => {
    expect(planChat({ messages: [user], contextSize: 2048, contextOverflow: "truncate-oldest" }, "chat")).toMatchObject(
      { contextSize: 2048, contextOverflow: "truncate-oldest" },
    );
    expect(planChat({ messages: [user], contextSize: "auto" }, "chat")).toMatchObject({
      contextSize: "auto",
      contextOverflow: undefined,
    });
  });

  it("ChatSession checks its contextOverflow", () => {
    expect(() => checkSessionOptions({ contextOverflow: "shift" })).toThrow(
      /ChatSession: options\.contextOverflow must be "error" or "truncate-oldest", got "shift"/,
    );
    expect(() => checkSessionOptions({ contextOverflow: "truncate-oldest" })).not.toThrow();
  });
});
