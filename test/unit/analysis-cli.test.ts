// `toolwright analyze`: the table and --json outputs, .gguf input (the template comes from the
// model's metadata) and the error messages for missing files, models without a chat template
// and templates that do not compile.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";
import { runCli as run } from "../helpers/run-cli.js";

const MODELS_DIR = fileURLToPath(new URL("../../deps/llama.cpp/models/", import.meta.url));

describe("toolwright analyze", () => {
  const qwen3 = join(TEMPLATES_DIR, "Qwen-Qwen3-0.6B.jinja");

  it("prints modes and markers as a table", async () => {
    const r = await run("analyze", qwen3);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^reasoning\s+TAG_BASED$/m);
    expect(r.stdout).toMatch(/^tool calls\s+JSON_NATIVE$/m);
    expect(r.stdout).toMatch(/^ {2}per-call start\s+"<tool_call>\\n"$/m);
    expect(r.stdout).toContain('"<think>" "</think>" "<tool_call>" "</tool_call>"');
  });

  it("prints the TemplateAnalysis with --json", async () => {
    const r = await run("analyze", qwen3, "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(analyzeChatTemplate(readFileSync(qwen3, "utf8")));
  });

  it("reads the chat template of a .gguf model", async () => {
    const r = await run("analyze", join(MODELS_DIR, "ggml-vocab-qwen2.gguf"), "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).assistantStart).toBe("<|im_start|>assistant");
  });

  it("says when a model has no chat template", async () => {
    const r = await run("analyze", join(MODELS_DIR, "ggml-vocab-gpt-2.gguf"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/ggml-vocab-gpt-2\.gguf: the model has no chat template/);
  });

  it("says when the file does not exist", async () => {
    const r = await run("analyze", "/nonexistent/model.gguf");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/model\.gguf/);
    const t = await run("analyze", "/nonexistent/template.jinja");
    expect(t.code).toBe(1);
    expect(t.stderr).toBe("toolwright analyze: /nonexistent/template.jinja: no such file\n");
  });

  it("says when a file is not a GGUF model", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-cli-"));
    const fake = join(dir, "fake.gguf");
    writeFileSync(fake, "definitely not gguf");
    const r = await run("analyze", fake);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not a GGUF file/);
  });

  it("reports a template syntax error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-cli-"));
    const bad = join(dir, "bad.jinja");
    writeFileSync(bad, "{% for m in messages %}{{ m.content }");
    const r = await run("analyze", bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.jinja: the chat template has a syntax error/);
  });

  it("rejects bad usage with exit code 2", async () => {
    expect((await run("analyze")).code).toBe(2);
    expect((await run("analyze", "a", "b")).code).toBe(2);
    const r = await run("analyze", qwen3, "--yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown option --yaml/);
  });
});

describe("toolwright", () => {
  it("lists its commands with --help", async () => {
    const r = await run("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}analyze\s+show how a model writes/m);
    expect((await run("help", "analyze")).stdout).toMatch(/^Usage: toolwright analyze/);
    expect((await run("analyze", "--help")).stdout).toMatch(/--json/);
  });

  it("rejects unknown commands and a missing command", async () => {
    const r = await run("frobnicate");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command "frobnicate"/);
    expect((await run()).code).toBe(2);
  });

  it("is an executable script", () => {
    const src = readFileSync(fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url)), "utf8");
    expect(src.startsWith("#!/usr/bin/env node\n")).toBe(true);
  });
});
