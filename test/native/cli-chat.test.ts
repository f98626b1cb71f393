/**
 * `toolwright chat`: the compiled CLI run as a child process on a tiny random-weight model, with
 * the conversation piped into stdin.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { writeLoraAdapter } from "../helpers/lora-adapters.js";
import { runCliProcess, spawnCli } from "../helpers/run-cli.js";
import { ensureTestModel, REPO_ROOT } from "../helpers/test-models.js";

const WEATHER_TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Current weather in a city",
      parameters: {
        type: "object",
        properties: { city: { enum: ["Paris", "Oslo"] } },
        required: ["city"],
        additionalProperties: false,
      },
    },
  },
];

describe("toolwright chat", () => {
  let model: string;
  let dir: string;
  beforeAll(async () => {
    await ensureCompiledLib();
    model = await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" });
    dir = mkdtempSync(join(tmpdir(), "toolwright-chat-"));
  }, 300_000);

  it("answers a piped message and exits on /exit", async () => {
    const r = await runCliProcess(["chat", model, "--max-tokens", "16", "--seed", "1"], "hello\n/exit\nnot read\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    // Not a terminal: plain percentage lines, ending at 100%.
    expect(r.stderr).toMatch(/loading .*: 100%\n/);
    expect(r.stderr).not.toContain("\r");
    // Where the model runs: the CPU here unless the build has a GPU.
    expect(r.stderr).toMatch(/running on (the CPU|.+: \d+ of \d+ layers)\n/);
  }, 60_000);

  it("--gpu off runs on the CPU; --gpu with a backend the build lacks exits 1 naming it", async () => {
    const cpu = await runCliProcess(["chat", model, "--gpu", "off", "--max-tokens", "4"], "hi\n");
    expect(cpu.code, cpu.stderr).toBe(0);
    expect(cpu.stderr).toContain("running on the CPU\n");
    const vulkan = await runCliProcess(["chat", model, "--gpu", "vulkan", "--max-tokens", "4"], "hi\n");
    if (vulkan.code !== 0) {
      expect(vulkan.code).toBe(1);
      expect(vulkan.stderr).toMatch(/"vulkan" was asked for/);
    }
  }, 60_000);

  it("keeps the conversation over several turns and quits at end of input", async () => {
    const r = await runCliProcess(
      ["chat", model, "--max-tokens", "8", "--seed", "2", "--system", "Be brief.", "--no-thinking"],
      "one\ntwo\n",
    );
    expect(r.code, r.stderr).toBe(0);
    // Each answer ends with a newline: two answers, two (or more) lines.
    expect(r.stdout.split("\n").filter((l) => l !== "").length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("a conversation over --context-size: an error naming the flags; --context-overflow drops turns", async () => {
    const question = (i: number) => `Question ${i}: ${"tell me about the weather ".repeat(8)}`;
    const turns = `${Array.from({ length: 6 }, (_, i) => question(i)).join("\n")}\n`;
    const args = ["chat", model, "--context-size", "256", "--max-tokens", "8", "--seed", "1"];
    const failing = await runCliProcess(args, turns);
    expect(failing.code, failing.stderr).toBe(0); // a failed turn is reported; the chat goes on
    expect(failing.stderr).toMatch(/toolwright chat: the prompt needs \d+ tokens .*\(--context-size\); /);
    expect(failing.stderr).toMatch(/ or pass --context-overflow truncate-oldest to drop the oldest turns/);
    const truncating = await runCliProcess([...args, "--context-overflow", "truncate-oldest"], turns);
    expect(truncating.code, truncating.stderr).toBe(0);
    expect(truncating.stderr).not.toMatch(/the prompt needs/);
    expect(truncating.stderr).toMatch(/\[\d+ earliest messages left out to fit the context\]/);
  }, 60_000);

  it("Ctrl-C stops the answer being written, not the program", async () => {
    const { child, stdout, stderr, exit: closed } = spawnCli(["chat", model, "--max-tokens", "1000000"]);
    child.stdin.write("tell me everything\n");
    // Interrupt once the answer is streaming, then carry on and quit normally.
    while (stdout().length === 0) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    while (!stderr().includes("[answer stopped]")) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end("/exit\n");
    expect(await closed, stderr()).toBe(0);
  }, 60_000);

  it("shows a required tool call as → name(arguments)", async () => {
    const tools = join(dir, "tools.json");
    writeFileSync(tools, JSON.stringify(WEATHER_TOOLS));
    const r = await runCliProcess(
      ["chat", model, "--tools", tools, "--tool-choice", "required", "--max-tokens", "64", "--seed", "1"],
      "weather in Paris?\n",
    );
    expect(r.code, r.stderr).toBe(0);
    const call = r.stdout.split("\n").find((l) => l.startsWith("→ "));
    expect(call, r.stdout).toBeDefined();
    expect(call).toMatch(/^→ get_weather\(\{.*\}\)$/);
  }, 60_000);

  it.each([
    ["not JSON", "[{", /is not valid JSON/],
    ["not an array", '{"name": "x"}', /must hold an array of tools/],
    ["a tool without a function", '[{"type": "function"}]', /tools\[0\]\.function must be an object/],
  ])(
    "rejects a tools file that is %s (exit 1, file named)",
    async (_what, text, problem) => {
      const tools = join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(tools, text);
      const r = await runCliProcess(["chat", model, "--tools", tools], "hello\n");
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(tools);
      expect(r.stderr).toMatch(problem);
      expect(r.stdout).toBe("");
    },
    30_000,
  );

  it("--lora applies an adapter (the greedy answer changes); a missing or invalid one exits 1 naming it", async () => {
    const adapter = join(dir, "adapter.gguf");
    await writeLoraAdapter(model, adapter, { seed: 5 });
    const greedy = ["--temperature", "0", "--max-tokens", "12"];
    const base = await runCliProcess(["chat", model, ...greedy], "hello\n");
    const zero = await runCliProcess(["chat", model, ...greedy, "--lora", `${adapter}:0`], "hello\n");
    const adapted = await runCliProcess(["chat", model, ...greedy, "--lora", adapter], "hello\n");
    expect([base.code, zero.code, adapted.code]).toEqual([0, 0, 0]);
    expect(zero.stdout).toBe(base.stdout);
    expect(adapted.stdout).not.toBe(base.stdout);
    const missing = await runCliProcess(["chat", model, "--lora", join(dir, "none.gguf")], "hello\n");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`--lora: Cannot load the LoRA adapter "${join(dir, "none.gguf")}": no such file`);
    const invalid = await runCliProcess(["chat", model, "--lora", model], "hello\n");
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/general\.type.*llama_adapter_lora_init failed/);
  }, 60_000);

  it("reports a missing model file with exit 1", async () => {
    const missing = join(dir, "no-such-model.gguf");
    const r = await runCliProcess(["chat", missing], "");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(missing);
  }, 30_000);

  it.each([
    [[]],
    [["a.gguf", "b.gguf"]],
    [["m.gguf", "--max-tokens", "0"]],
    [["m.gguf", "--temperature", "hot"]],
    [["m.gguf", "--tool-choice", "sometimes"]],
    [["m.gguf", "--tool-choice", "required"]],
    [["m.gguf", "--bogus"]],
    [["m.gguf", "--seed"]],
    [["m.gguf", "--gpu", "opencl"]],
    [["m.gguf", "--gpu-layers", "-1"]],
  ])(
    "usage error %j exits 2",
    async (args) => {
      const r = await runCliProcess(["chat", ...args], "");
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Usage: toolwright chat");
    },
    30_000,
  );

  it("--json-schema FILE constrains every answer to the schema", async () => {
    const schema = join(dir, "answer.schema.json");
    writeFileSync(schema, JSON.stringify({ enum: ["yes", "no"] }));
    const r = await runCliProcess(
      ["chat", model, "--json-schema", schema, "--max-tokens", "16", "--seed", "3"],
      "is it?\nreally?\n",
    );
    expect(r.code, r.stderr).toBe(0);
    const answers = r.stdout.split("\n").filter((l) => l !== "");
    expect(answers).toHaveLength(2);
    // Each answer opens with a value of the schema (what follows it is the chat layer's business).
    for (const a of answers) expect(a).toMatch(/^"(yes|no)"/);
  }, 60_000);

  it("--template FILE renders with that template (one that refuses shows its message)", async () => {
    const template = join(dir, "refuses.jinja");
    writeFileSync(template, "{{ raise_exception('refused by the test template') }}");
    const r = await runCliProcess(["chat", model, "--template", template, "--max-tokens", "4"], "hello\n");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("refused by the test template");
    expect(r.stdout).toBe("");
  }, 60_000);

  it("--context-size N sizes the context: a longer prompt is refused, a short one answered", async () => {
    const small = await runCliProcess(
      ["chat", model, "--context-size", "64", "--max-tokens", "4"],
      `${"word ".repeat(200)}\nhi\n`,
    );
    expect(small.code, small.stderr).toBe(0);
    // The long message does not fit (the context is rounded up to 256 tokens); the short one does.
    expect(small.stderr).toMatch(/the prompt needs \d+ tokens .* but the context holds 256/);
    expect(small.stdout.trim().length).toBeGreaterThan(0);
    const big = await runCliProcess(["chat", model, "--context-size", String(1 << 24)], "hi\n");
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/--context-size 16777216 exceeds the model's training context \(\d+ tokens\)/);
  }, 60_000);

  it.each([
    [
      "a template that does not compile",
      "--template",
      "bad.jinja",
      "{% if %}",
      /template file .*bad\.jinja does not compile/,
    ],
    ["an empty template", "--template", "empty.jinja", "  \n", /template file .*empty\.jinja is empty/],
    [
      "a schema file that is not JSON",
      "--json-schema",
      "bad.json",
      "{",
      /JSON Schema file .*bad\.json is not valid JSON/,
    ],
    ["a schema that is an array", "--json-schema", "arr.json", "[1]", /must hold a schema \(an object\), got an array/],
    [
      "a schema the grammar cannot follow",
      "--json-schema",
      "ref.json",
      '{"$ref": "#/nope"}',
      /JSON Schema file .*ref\.json: /,
    ],
    [
      "tools whose parameters the grammar cannot follow",
      "--tools",
      "badparams.json",
      JSON.stringify([{ type: "function", function: { name: "f", parameters: { $ref: "#/nope" } } }]),
      /tools\[0\]\.function\.parameters \(f\): /,
    ],
    [
      "two tools of one name",
      "--tools",
      "twice.json",
      JSON.stringify([WEATHER_TOOLS[0], WEATHER_TOOLS[0]]),
      /tools\[1\]: a second tool named "get_weather"/,
    ],
  ])(
    "rejects %s before loading the model (exit 1, file named)",
    async (_what, flag, name, content, problem) => {
      const file = join(dir, name);
      writeFileSync(file, content);
      const r = await runCliProcess(["chat", model, flag, file], "hello\n");
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(problem);
      expect(r.stderr).not.toMatch(/loading/);
    },
    30_000,
  );

  it.each([
    [["m.gguf", "--context-szie", "64"], /unknown option --context-szie \(did you mean --context-size\?\)/],
    [["m.gguf", "--context-size", "0"], /--context-size must be an integer in \[1, 16777216\], got "0"/],
    [["m.gguf", "--template"], /--template needs a value \(FILE\)/],
    [["m.gguf", "--seed", "--max-tokens", "3"], /--seed needs a value/],
    [["m.gguf", "--no-thinking=1"], /--no-thinking takes no value/],
  ])(
    "usage error %j names the mistake",
    async (args, message) => {
      const r = await runCliProcess(["chat", ...args], "");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    },
    30_000,
  );

  it("prints its help, which says tool calls are not executed", async () => {
    const r = await runCliProcess(["chat", "--help"], "");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: toolwright chat <model.gguf | hf:OWNER/REPO/FILE.gguf>");
    expect(r.stdout).toMatch(/NOT executed/);
    for (const option of [
      "--context-size N",
      "--template FILE",
      "--system TEXT",
      "--tools FILE",
      "--json-schema FILE",
      "--tool-choice MODE",
      "-h, --help",
    ])
      expect(r.stdout).toContain(option);
  }, 30_000);

  it("--version prints the package's version; an unknown command gets a did-you-mean", async () => {
    const version = await runCliProcess(["--version"], "");
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version}\n`);
    const typo = await runCliProcess(["chta", "m.gguf"], "");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/unknown command "chta" \(did you mean "chat"\?\)/);
    const help = await runCliProcess(["help", "chat"], "");
    expect(help.stdout).toBe((await runCliProcess(["chat", "--help"], "")).stdout);
  }, 30_000);
});
