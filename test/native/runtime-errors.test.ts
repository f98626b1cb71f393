/**
 * Failures the addon reports reach callers as toolwright's error classes (a ToolwrightError with
 * the table's code, the addon's error as `cause`), never as plain Errors with a `code` property:
 * each case provokes a real failure on a tiny random-weight model.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ToolwrightError } from "../../src/errors.js";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const CONTEXT = { contextSize: 256, threads: 1 } as const;
const PROMPT = "Once upon a time, in a land far away,";

let path: string;
let model: Model;

beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm" });
  model = await loadModel(path);
});

afterAll(() => model?.dispose());

async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

/** Generates on `context` and disposes it after the third token. */
async function disposeMidGeneration(context: Context): Promise<void> {
  let n = 0;
  for await (const _ of context.generate({ prompt: PROMPT, maxTokens: 100 })) if (++n === 3) context.dispose();
}

interface Case {
  name: string;
  run: (model: Model) => Promise<unknown>;
  code: string;
  /** The addon's own error is kept as `cause` (it carries the same code). */
  nativeCause: boolean;
}

const contextCases: Case[] = [
  {
    name: "Context.decode of more tokens than the context holds (an over-long batch)",
    run: async (m) => (await m.createContext(CONTEXT)).decode(new Array(CONTEXT.contextSize + 1).fill(1)),
    code: "TOOLWRIGHT_CONTEXT_FULL",
    nativeCause: true,
  },
  {
    name: "generate on a disposed context",
    run: async (m) => {
      const context = await m.createContext(CONTEXT);
      context.dispose();
      return context.generate({ prompt: PROMPT });
    },
    code: "TOOLWRIGHT_DISPOSED",
    nativeCause: false,
  },
  {
    name: "a context disposed mid-generation (one sequence)",
    run: async (m) => disposeMidGeneration(await m.createContext(CONTEXT)),
    code: "TOOLWRIGHT_DISPOSED",
    nativeCause: false,
  },
  {
    name: "a context disposed mid-generation (two sequences, the batch scheduler)",
    run: async (m) => disposeMidGeneration(await m.createContext({ ...CONTEXT, sequences: 2 })),
    code: "TOOLWRIGHT_DISPOSED",
    nativeCause: false,
  },
  {
    name: "Context.cachedTokens on a disposed context",
    run: async (m) => {
      const context = await m.createContext(CONTEXT);
      context.dispose();
      return context.cachedTokens();
    },
    code: "TOOLWRIGHT_DISPOSED",
    nativeCause: false,
  },
];

describe("failures on a live model", () => {
  test.each(contextCases)("$name: a ToolwrightError with code $code", async ({ run, code, nativeCause }) => {
    const err = await failure(() => run(model));
    expect(err).toBeInstanceOf(ToolwrightError);
    expect(err).toMatchObject({ name: "ToolwrightError", code });
    if (nativeCause) {
      const cause = (err as Error).cause as Error & { code?: string };
      expect(cause).toBeInstanceOf(Error);
      expect(cause).not.toBeInstanceOf(ToolwrightError);
      expect(cause.code).toBe(code);
      expect((err as Error).message).toBe(cause.message);
    }
  });
});

const disposedModelCases: { name: string; run: (model: Model) => unknown }[] = [
  { name: "tokenize", run: (m) => m.tokenize("hello") },
  { name: "tokenizeAsync", run: (m) => m.tokenizeAsync("hello") },
  { name: "detokenize", run: (m) => m.detokenize([1, 2]) },
  { name: "detokenizeAsync", run: (m) => m.detokenizeAsync([1, 2]) },
  { name: "vocabulary", run: (m) => m.vocabulary() },
  { name: "createContext", run: (m) => m.createContext(CONTEXT) },
  { name: "embed", run: (m) => m.embed("hello") },
  { name: "chatTemplate", run: (m) => m.chatTemplate },
];

describe("a disposed model", () => {
  test.each(disposedModelCases)(
    "$name: a ToolwrightError with code TOOLWRIGHT_DISPOSED naming the model",
    async ({ run }) => {
      const disposed = await loadModel(path);
      disposed.dispose();
      const err = await failure(() => run(disposed));
      expect(err).toBeInstanceOf(ToolwrightError);
      expect(err).toMatchObject({ code: "TOOLWRIGHT_DISPOSED", message: expect.stringContaining(path) });
    },
  );

  test("disposed while embedding: TOOLWRIGHT_DISPOSED", async () => {
    const m = await loadModel(path);
    const running = m.embed(Array.from({ length: 64 }, (_, i) => `${PROMPT} ${i}`));
    setImmediate(() => m.dispose());
    const err = await failure(() => running);
    expect(err).toBeInstanceOf(ToolwrightError);
    expect((err as ToolwrightError).code).toBe("TOOLWRIGHT_DISPOSED");
  });
});
