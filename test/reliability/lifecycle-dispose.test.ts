// Lifecycle sequences in a child process (isolated(): returned | threw | crashed | hung): dispose
// or abort mid-generation, dispose twice, use after dispose, on models, contexts and chat
// sessions. Zero crashes and hangs; each case also says what the caller sees.
import { beforeAll, describe, expect, it } from "vitest";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

let path: string;
beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" });
});

/** Each body sees `path`, `model` (loaded) and `ctx` (a context of it). */
const prelude = (p: string) => `
const path = ${JSON.stringify(p)};
const model = await lib.loadModel(path);
const ctx = await model.createContext({ contextSize: 512 });
const errorOf = async (f) => { try { await f(); return null; } catch (e) { return { name: e?.name,
  code: e?.code ?? null }; } };
`;

interface Case {
  name: string;
  body: string;
  /** The child's outcome; `value` is checked when given. */
  kind: "returned" | "threw";
  value?: unknown;
  error?: { name?: string; code?: string };
}

const cases: Case[] = [
  {
    name: "abort mid-generation",
    body: `const ac = new AbortController(); const g = ctx.generate({ prompt: "Once", maxTokens: 400,
      signal: ac.signal });
      let n = 0; const err = await errorOf(async () => { for await (const _ of g) if (++n === 5) ac.abort(); });
      const after = await ctx.generate({ prompt: "Again", maxTokens: 2 }).text();
      return { stoppedEarly: n < 400, aborted: g.stopReason === "abort" || err?.code === "ABORT_ERR",
        after: typeof after, stop: g.stopReason ?? null, err };`,
    kind: "returned",
    value: expect.objectContaining({ stoppedEarly: true, aborted: true, after: "string" }),
  },
  {
    name: "dispose the context mid-generation",
    body: `const g = ctx.generate({ prompt: "Once", maxTokens: 400 }); let n = 0;
      await errorOf(async () => { for await (const _ of g) if (++n === 5) ctx.dispose(); });
      return { disposed: ctx.disposed, stoppedEarly: n < 400 };`,
    kind: "returned",
    value: { disposed: true, stoppedEarly: true },
  },
  {
    name: "dispose the model mid-generation",
    body: `const g = ctx.generate({ prompt: "Once", maxTokens: 400 }); let n = 0;
      await errorOf(async () => { for await (const _ of g) if (++n === 5) model.dispose(); });
      return { model: model.disposed, ctx: ctx.disposed, stoppedEarly: n < 400 };`,
    kind: "returned",
    value: { model: true, ctx: true, stoppedEarly: true },
  },
  {
    name: "dispose the model while generation is awaited without reading",
    body: `const g = ctx.generate({ prompt: "Once", maxTokens: 400 }); const text = g.text();
      setImmediate(() => model.dispose());
      await errorOf(() => text); await new Promise((r) => setTimeout(r, 20)); return { disposed: model.disposed };`,
    kind: "returned",
    value: { disposed: true },
  },
  {
    name: "dispose twice (context, then model twice)",
    body: `ctx.dispose(); ctx.dispose(); model.dispose(); model.dispose(); return [ctx.disposed, model.disposed];`,
    kind: "returned",
    value: [true, true],
  },
  {
    name: "tokenize after the model is disposed",
    body: `model.dispose(); return model.tokenize("hello");`,
    kind: "threw",
  },
  {
    name: "generate on a disposed context",
    body: `ctx.dispose(); for await (const _ of ctx.generate({ prompt: "x", maxTokens: 2 })); return "generated";`,
    kind: "threw",
  },
  {
    name: "createContext on a disposed model",
    body: `model.dispose(); await model.createContext({ contextSize: 64 }); return "created";`,
    kind: "threw",
  },
  {
    name: "detokenize after the model is disposed",
    body: `model.dispose(); return model.detokenize([1, 2]);`,
    kind: "threw",
  },
  {
    name: "abort a chat mid-generation, then chat again",
    body: `const m = await lib.loadModel(path); const ac = new AbortController(); let n = 0;
      const stream = m.streamChat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 300, signal: ac.signal });
      await errorOf(async () => { for await (const _ of stream) if (++n === 3) ac.abort(); });
      const first = await stream.result.catch((e) => ({ finishReason: "rejected:" + e.name }));
      const again = await m.chat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 4 });
      m.dispose(); return { first: first.finishReason, again: typeof again.finishReason };`,
    kind: "returned",
    value: { first: "abort", again: "string" },
  },
  {
    name: "dispose the chat model mid-stream",
    body: `const m = await lib.loadModel(path); let n = 0;
      const stream = m.streamChat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 300 });
      await errorOf(async () => { for await (const _ of stream) if (++n === 3) m.dispose(); });
      await stream.result.catch(() => undefined); m.dispose(); return m.disposed;`,
    kind: "returned",
    value: true,
  },
  {
    name: "a ChatSession disposed mid-chat, then used again",
    body: `const { ChatSession } = lib; const s = new ChatSession(model); let n = 0;
      const stream = s.streamChat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 300 });
      await errorOf(async () => { for await (const _ of stream) if (++n === 3) s.dispose(); });
      s.dispose(); s.dispose();
      const again = await s.chat({ messages: [{ role: "user", content: "Hi" }], maxTokens: 4 });
      return typeof again.finishReason;`,
    kind: "returned",
    value: "string",
  },
  {
    name: "chat after the model is disposed",
    body:
      `const m = await lib.loadModel(path); m.dispose(); await m.chat({ messages: [{ role: "user", content: ` +
      `"Hi" }], maxTokens: 4 }); return "chatted";`,
    kind: "threw",
  },
];

describe("lifecycle: dispose, abort, use after dispose", () => {
  it.each(cases)("$name", async ({ body, kind, value }) => {
    const r = await isolated(prelude(path) + body, { timeoutMs: 120_000 });
    expect(r.kind, describeOutcome(r)).toBe(kind);
    if (value !== undefined) expect(r.value).toEqual(value);
    if (kind === "threw") expect(r.error?.name).toMatch(/Error$/);
  });
});
