/**
 * `toolwright serve`: the compiled CLI as a child process on a tiny random-weight model, driven
 * by the real `openai` client; SIGTERM drains the request in flight before the process exits.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { basename, join } from "node:path";
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { writeLoraAdapter } from "../helpers/lora-adapters.js";
import { ensureTestModel, REPO_ROOT } from "../helpers/test-models.js";

const CLI = join(REPO_ROOT, "lib", "cli", "main.js");

function start(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcessWithoutNullStreams; out: { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, "serve", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, out, exited };
}

async function listening(out: { stdout: string }, exited: Promise<number | null>): Promise<string> {
  let done = false;
  void exited.then(() => (done = true));
  for (;;) {
    const m = /at (http:\/\/[^\s]+\/v1)/.exec(out.stdout);
    if (m) return m[1]!;
    if (done) throw new Error(`serve exited before listening: ${out.stdout}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("toolwright serve", () => {
  let model: string;
  beforeAll(async () => {
    await ensureCompiledLib();
    model = await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" });
  }, 300_000);

  it("serves the openai client with a Bearer key and drains on SIGTERM", async () => {
    const { child, out, exited } = start([model, "--port", "0", "--alias", "tiny", "--max-tokens", "512"], {
      TOOLWRIGHT_API_KEY: "k1",
    });
    const baseURL = await listening(out, exited);
    expect(new URL(baseURL).hostname).toBe("127.0.0.1");
    expect(out.stdout).toMatch(/API key required/);
    const client = new OpenAI({ baseURL, apiKey: "k1", maxRetries: 0 });
    expect((await client.models.list()).data[0]!.id).toBe("tiny");
    await expect(new OpenAI({ baseURL, apiKey: "k2", maxRetries: 0 }).models.list()).rejects.toMatchObject({
      status: 401,
    });
    await expect(
      client.chat.completions.create({ model: "tiny", messages: [{ role: "user", content: "Hi" }], max_tokens: 513 }),
    ).rejects.toMatchObject({ status: 400, param: "max_tokens" });
    // A long answer in flight when SIGTERM arrives still ends normally: 512 tokens, so it is still running
    // when the client reads its first chunk (64 had sometimes ended by then).
    const stream = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: "Story" }],
      max_tokens: 512,
      response_format: {
        type: "json_schema",
        json_schema: { name: "long", schema: { type: "string", minLength: 100000 } },
      },
      stream: true,
    });
    let finish: string | null = null;
    let first = true;
    for await (const chunk of stream) {
      if (first) child.kill("SIGTERM");
      first = false;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe("length");
    expect(await exited).toBe(0);
    expect(out.stderr).toMatch(/stopping \(1 request\(s\) in flight\)/);
    expect(out.stderr).toMatch(/stopped/);
  });

  it("--alias (repeated), --cors, --quiet, --context-overflow, and /v1/embeddings on the command's model", async () => {
    const { child, out, exited } = start([
      model,
      "--port",
      "0",
      "--alias",
      "tiny",
      "--alias",
      "small",
      "--cors",
      "https://app.example",
      "--quiet",
      "--context-overflow",
      "truncate-oldest",
      "--context-size",
      "256",
      "--parallel",
      "1",
      "--threads",
      "1",
    ]);
    try {
      const baseURL = await listening(out, exited);
      const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0 });
      const file = basename(model, ".gguf");
      expect((await client.models.list()).data.map((m) => m.id)).toEqual(["tiny", "small", file]);
      await expect(
        client.chat.completions.create({ model: "other", messages: [{ role: "user", content: "Hi" }] }),
      ).rejects.toMatchObject({ status: 404, code: "model_not_found" });
      const cors = await fetch(`${baseURL}/models`, { headers: { Origin: "https://app.example" } });
      expect(cors.headers.get("access-control-allow-origin")).toBe("https://app.example");
      // A conversation far over the 256-token context loses its oldest turns instead of failing.
      const messages = Array.from({ length: 40 }, (_, i) => ({
        role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
        content: `Turn ${i}: tell me more about the weather in the mountains today`,
      }));
      messages.push({ role: "user", content: "And tomorrow?" });
      const r = await client.chat.completions.create({ model: "small", messages, max_tokens: 4 });
      expect(r.usage!.prompt_tokens).toBeLessThanOrEqual(256);
      const embedded = await client.embeddings.create({ model: "tiny", input: ["a cat", "a dog"] });
      expect(embedded.data).toHaveLength(2);
      expect(embedded.data[0]!.embedding.length).toBeGreaterThan(0);
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
    // --quiet: no access log; the lines of starting and stopping remain.
    expect(out.stderr).not.toMatch(/(GET|POST) \/v1\//);
    expect(out.stderr).toMatch(/stopped/);
  });

  it("--parallel: concurrent requests give the answers they give one at a time (greedy)", async () => {
    // A template that adds no shared preamble: no prompt shares a prefix worth reusing, so each is
    // evaluated whole in both runs (a prompt split differently between cache and batch may differ
    // in the last bits, as in llama.cpp), and only the batching differs.
    const nemo = await ensureTestModel({ vocab: "llama-spm", template: "mistralai-Mistral-Nemo-Instruct-2407" });
    const questions = [
      "Why is the sky blue?",
      "Name three rivers.",
      "Count to five",
      "What is a prime number",
      "Tell me a joke",
    ];
    const answers = async (concurrent: boolean) => {
      const { child, out, exited } = start([
        nemo,
        "--port",
        "0",
        "--parallel",
        "3",
        "--threads",
        "1",
        "--context-size",
        "512",
      ]);
      try {
        const baseURL = await listening(out, exited);
        expect(out.stdout).toMatch(/\(3 parallel sequences\)/);
        const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0 });
        const ask = async (q: string) => {
          const r = await client.chat.completions.create({
            model: basename(nemo, ".gguf"),
            messages: [{ role: "user", content: q }],
            max_tokens: 24,
            temperature: 0,
          });
          return r.choices[0]!.message.content;
        };
        const result: (string | null)[] = [];
        // Five at once on three sequences: two wait, then join the running batch.
        if (concurrent) result.push(...(await Promise.all(questions.map(ask))));
        else for (const q of questions) result.push(await ask(q));
        return result;
      } finally {
        child.kill("SIGTERM");
        expect(await exited).toBe(0);
      }
    };
    const alone = await answers(false);
    expect(new Set(alone).size).toBeGreaterThan(1);
    expect(await answers(true)).toEqual(alone);
  });

  const USAGE: { label: string; args: string[]; code: number; message: RegExp }[] = [
    { label: "no model", args: [], code: 2, message: /expected one model path/ },
    { label: "a bad port", args: ["m.gguf", "--port", "http"], code: 2, message: /--port must be an integer/ },
    {
      label: "an unknown option",
      args: ["m.gguf", "--prot", "1"],
      code: 2,
      message: /unknown option --prot \(did you mean --port\?\)/,
    },
    { label: "a missing model file", args: ["no-such-model.gguf"], code: 1, message: /no-such-model\.gguf/ },
    {
      label: "--parallel 0",
      args: ["m.gguf", "--parallel", "0"],
      code: 2,
      message: /--parallel must be an integer in \[1, 256\]/,
    },
    { label: "--threads without a value", args: ["m.gguf", "--threads"], code: 2, message: /--threads needs a value/ },
  ];
  it.each(USAGE)("exits $code on $label", async ({ args, code, message }) => {
    const { out, exited } = start(args);
    expect(await exited).toBe(code);
    expect(out.stderr).toMatch(message);
  });

  it("--lora changes the answers; --slot-save-path saves a slot; a bad adapter exits 1 naming --lora", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolwright-serve-lora-"));
    const adapter = join(dir, "adapter.gguf");
    await writeLoraAdapter(model, adapter, { seed: 5 });
    const answer = async (extra: string[]) => {
      const { child, out, exited } = start([model, "--port", "0", "--parallel", "1", "--threads", "1", ...extra]);
      try {
        const baseURL = await listening(out, exited);
        const save = () =>
          fetch(`${baseURL.replace(/\/v1$/, "")}/slots/0?action=save`, {
            method: "POST",
            body: JSON.stringify({ filename: "slot0.bin" }),
          });
        // The context is made before the server listens: a slot can be saved (empty) before any request.
        const before = await save();
        const saved = before.status === 200 ? ((await before.json()) as { n_saved: number }).n_saved : -1;
        const client = new OpenAI({ baseURL, apiKey: "none", maxRetries: 0 });
        const r = await client.chat.completions.create({
          messages: [{ role: "user", content: "hello" }],
          model: basename(model, ".gguf"),
          max_tokens: 12,
          temperature: 0,
        });
        return { text: r.choices[0]!.message.content, slot: (await save()).status, saved };
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    };
    const base = await answer([]);
    const tuned = await answer(["--lora", `${adapter}:1`, "--slot-save-path", dir]);
    expect(tuned.text).not.toBe(base.text);
    expect(base.slot).toBe(501);
    expect(tuned.slot).toBe(200);
    expect(tuned.saved).toBe(0);
    const { out, exited } = start([model, "--port", "0", "--lora", join(dir, "absent.gguf")]);
    expect(await exited).toBe(1);
    expect(out.stderr).toMatch(/--lora: .*absent\.gguf/);
  });

  it("--draft-model: the same answer, drafted tokens in the usage; another vocabulary exits 1 naming it", async () => {
    const answer = async (extra: string[]) => {
      const { child, out, exited } = start([model, "--port", "0", "--parallel", "1", "--threads", "1", ...extra]);
      try {
        const client = new OpenAI({ baseURL: await listening(out, exited), apiKey: "none", maxRetries: 0 });
        return await client.chat.completions.create({
          messages: [{ role: "user", content: "hello" }],
          model: basename(model, ".gguf"),
          max_tokens: 16,
          temperature: 0,
        });
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    };
    const base = await answer([]);
    const drafted = await answer(["--draft-model", model, "--draft-p-min", "0", "--lookup", "--draft-max", "4"]);
    expect(drafted.choices[0]!.message.content).toBe(base.choices[0]!.message.content);
    const details = drafted.usage?.completion_tokens_details;
    expect(details?.accepted_prediction_tokens).toBeGreaterThan(0);
    expect(base.usage?.completion_tokens_details?.rejected_prediction_tokens).toBe(0);
    const foreign = await ensureTestModel({ vocab: "qwen2" });
    const { out, exited } = start([model, "--port", "0", "--draft-model", foreign]);
    expect(await exited).toBe(1);
    expect(out.stderr).toMatch(/--draft-model: .*cannot draft for/);
  });

  it("prints its help", async () => {
    const { out, exited } = start(["--help"]);
    expect(await exited).toBe(0);
    expect(out.stdout).toMatch(/--api-key KEY/);
  });
});
