/**
 * `toolwright chat --session FILE`: the conversation and its cache kept across runs of the compiled CLI.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { runCliProcess } from "../helpers/run-cli.js";
import { ensureTestModel } from "../helpers/test-models.js";

describe("toolwright chat --session", () => {
  let model: string;
  let dir: string;
  beforeAll(async () => {
    await ensureCompiledLib();
    model = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
    dir = mkdtempSync(join(tmpdir(), "toolwright-chat-session-"));
  }, 300_000);

  const chat = (file: string, input: string, extra: string[] = []) =>
    runCliProcess(["chat", model, "--session", file, "--max-tokens", "6", "--seed", "1", ...extra], input);
  const saved = (file: string) => JSON.parse(readFileSync(file, "utf8")).messages as { role: string }[];

  it("saves after every answer and resumes the conversation and its cache", async () => {
    const file = join(dir, "work.chat");
    const first = await chat(file, "hello\n", ["--system", "Be brief."]);
    expect(first.code, first.stderr).toBe(0);
    expect(saved(file).map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(existsSync(`${file}.kv`)).toBe(true);
    const second = await chat(file, "and again\n");
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`[resumed 3 messages from ${file}]`);
    expect(second.stderr).not.toContain("evaluated again");
    expect(saved(file).map((m) => m.role)).toEqual(["system", "user", "assistant", "user", "assistant"]);
  }, 60_000);

  it("a damaged cache is evaluated again; the messages still resume", async () => {
    const file = join(dir, "other.chat");
    expect((await chat(file, "hello\n")).code).toBe(0);
    writeFileSync(`${file}.kv`, readFileSync(`${file}.kv`).subarray(0, 100));
    const resumed = await chat(file, "more\n");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain("[resumed 2 messages");
    expect(resumed.stderr).toMatch(/\[its cache is evaluated again: .*other\.chat\.kv/);
  }, 60_000);

  it("a file that is not a session file exits 1 naming it, and is left alone", async () => {
    const file = join(dir, "notes.txt");
    writeFileSync(file, "my notes\n");
    const r = await chat(file, "hello\n");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--session ${file} is not a chat session file`);
    expect(readFileSync(file, "utf8")).toBe("my notes\n");
  }, 60_000);
});
