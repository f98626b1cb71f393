// `toolwright pull` against a local stand-in for the Hugging Face hub, `loadModel("hf:…")` on the
// file it caches, `toolwright chat hf:…` downloading before it answers, and `inspect` / `analyze`
// taking hf: references with pull's errors.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/session/index.js";
import { ModelDownloadError } from "../../src/runtime/hub/index.js";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { closedEndpoint, type HubServer, startHubServer } from "../helpers/hub-server.js";
import { ensureTestModel } from "../helpers/test-models.js";
import { runCli as run, runCliProcess } from "../helpers/run-cli.js";

const REPO = "toolwright-test/Chat-GGUF";
const FILE = "chat-Q8_0.gguf";
const REF = `hf:${REPO}/${FILE}`;

let server: HubServer;
let model: Buffer;
let root: string;
let n = 0;
const freshCache = () => join(root, `cache-${n++}`);
/** Where the hub cache `cache` keeps a file of main (the commit the test hub gives it now). */
const snapshot = (cache: string, file = FILE) =>
  join(cache, "models--toolwright-test--Chat-GGUF", "snapshots", server.commit(REPO, "main"), file);

beforeAll(async () => {
  model = readFileSync(await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" }));
  server = await startHubServer();
  server.put(REPO, FILE, { content: model });
  server.put(REPO, "chat-Q4_K_M.gguf", { content: model });
  root = mkdtempSync(join(tmpdir(), "toolwright-cli-pull-"));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe("toolwright pull", () => {
  it("downloads, prints the path on stdout and progress on stderr; a second pull finds it up to date", async () => {
    const cache = freshCache();
    const r = await run("pull", REF, "--endpoint", server.endpoint, "--cache-dir", cache);
    expect(r.code, r.stderr).toBe(0);
    // The hub cache's layout: snapshots/<commit>/<file>, a link to the blob.
    const path = snapshot(cache);
    expect(r.stdout).toBe(`${path}\n`);
    expect(readFileSync(path).equals(model)).toBe(true);
    // Not a terminal: a few plain lines, the last at 100% with the byte counts.
    expect(r.stderr).toMatch(/^pulling toolwright-test\/Chat-GGUF\/chat-Q8_0\.gguf: 0% /m);
    expect(r.stderr).toMatch(/: 100% [\d.]+ MiB of [\d.]+ MiB\n/);
    expect(r.stderr).toMatch(
      /^downloaded toolwright-test\/Chat-GGUF\/chat-Q8_0\.gguf \([\d.]+ MiB, sha256 [0-9a-f]{12}…\)/m,
    );
    expect(r.stderr).not.toContain("\r");

    const again = await run("pull", REF, "--endpoint", server.endpoint, "--cache-dir", cache, "--quiet");
    expect(again).toEqual({ code: 0, stdout: `${path}\n`, stderr: "" });
    const loud = await run("pull", REF, "--endpoint", server.endpoint, "--cache-dir", cache);
    expect(loud.stderr).toMatch(/^up to date: /m);
  });

  it("hub from TOOLWRIGHT_HF_ENDPOINT, cache from HF_HUB_CACHE; a quant tag picks the file", async () => {
    const cache = freshCache();
    const r = await withHubEnv(server.endpoint, cache, () => run("pull", `hf:${REPO}:Q4_K_M`, "-q"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${snapshot(cache, "chat-Q4_K_M.gguf")}\n`);
  });

  it("finds what an earlier version pulled into TOOLWRIGHT_MODELS_DIR (layout toolwright)", async () => {
    const cache = freshCache();
    const older = join(`${cache}-legacy`, "hf", "toolwright-test", "Chat-GGUF", "main", FILE);
    process.env.TOOLWRIGHT_CACHE_LAYOUT = "toolwright";
    try {
      const r = await withHubEnv(server.endpoint, cache, () => run("pull", REF, "-q"));
      expect(r).toEqual({ code: 0, stdout: `${older}\n`, stderr: "" });
    } finally {
      delete process.env.TOOLWRIGHT_CACHE_LAYOUT;
    }
    const again = await withHubEnv(server.endpoint, cache, () => run("pull", REF));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`${older}\n`);
    expect(again.stderr).toMatch(/^up to date: /m);
  });

  it.each([
    [
      "a missing file",
      () => [`hf:${REPO}/missing.gguf`, "--endpoint", server.endpoint],
      /missing\.gguf.*not found.*\[TOOLWRIGHT_DOWNLOAD_NOT_FOUND\]/,
    ],
    [
      "an unreachable hub",
      async () => [REF, "--endpoint", await closedEndpoint()],
      /cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\).*\[TOOLWRIGHT_OFFLINE\]/,
    ],
  ])("%s: one line on stderr, exit 1", async (_what, args, message) => {
    const r = await run("pull", ...(await args()), "--cache-dir", freshCache());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^toolwright pull: /);
    expect(r.stderr).toMatch(message);
  });

  it.each([
    [[], /expected one model reference, got 0/],
    [["model.gguf"], /is not a model reference: write hf:/],
    [["hf:a/b/model.bin"], /must be a \.gguf file/],
    [["hf:a/b/x.gguf", "--endpoint", "ftp://x"], /http\(s\) URL/],
    [["hf:a/b/x.gguf", "--revison", "v1"], /unknown option --revison \(did you mean --revision\?\)/],
    [["hf:a/b/x.gguf", "--endpoint"], /--endpoint needs a value/],
    [["hf:a/b/x.gguf", "--quiet=yes"], /--quiet takes no value/],
  ])("usage error %j: exit 2 with the usage", async (args, message) => {
    const r = await run("pull", ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain("Usage: toolwright pull");
  });

  it("--help and `help pull` print the usage, which names every option", async () => {
    const help = await run("pull", "--help");
    expect(help.code).toBe(0);
    expect((await run("help", "pull")).stdout).toBe(help.stdout);
    for (const option of ["--revision REV", "--endpoint URL", "--cache-dir DIR", "-q, --quiet", "-h, --help"])
      expect(help.stdout).toContain(option);
  });
});

/**
 * Runs `fn` with the hub and the caches taken from the environment, as a user sets them: the hub cache `cache`,
 * toolwright's older folder beside it.
 */
async function withHubEnv<T>(endpoint: string, cache: string, fn: () => Promise<T>): Promise<T> {
  const saved = {
    TOOLWRIGHT_HF_ENDPOINT: process.env.TOOLWRIGHT_HF_ENDPOINT,
    HF_HUB_CACHE: process.env.HF_HUB_CACHE,
    TOOLWRIGHT_MODELS_DIR: process.env.TOOLWRIGHT_MODELS_DIR,
  };
  process.env.TOOLWRIGHT_HF_ENDPOINT = endpoint;
  process.env.HF_HUB_CACHE = cache;
  process.env.TOOLWRIGHT_MODELS_DIR = `${cache}-legacy`;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Downloads that fail: what `pull` prints for each is what a command given the same reference prints. */
const DOWNLOAD_FAILURES: [string, () => string[] | Promise<string[]>, number][] = [
  ["a missing file", () => [`hf:${REPO}/missing.gguf`, server.endpoint], 1],
  ["an unreachable hub", async () => [REF, await closedEndpoint()], 1],
  ["a malformed reference", () => ["hf:a/b/model.bin", server.endpoint], 2],
];

describe.each(["inspect", "analyze"])("toolwright %s hf:…", (command) => {
  it("downloads into the cache and reports on it as on the local file; then works with the hub gone", async () => {
    const cache = freshCache();
    const path = snapshot(cache);
    const r = await withHubEnv(server.endpoint, cache, () => run(command, REF, "--json"));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^pulling toolwright-test\/Chat-GGUF\/chat-Q8_0\.gguf: 100%/m);
    expect(readFileSync(path).equals(model)).toBe(true);
    const local = await run(command, path, "--json");
    expect(local.code).toBe(0);
    expect(r.stdout).toBe(local.stdout);
    const offline = await withHubEnv(await closedEndpoint(), cache, () => run(command, REF, "--json"));
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stdout).toBe(local.stdout);
  });

  it.each(DOWNLOAD_FAILURES)("%s: the line `toolwright pull` prints, exit %i", async (_what, args, exitCode) => {
    const [ref, endpoint] = (await args()) as [string, string];
    const pulled = await run("pull", ref, "--endpoint", endpoint, "--cache-dir", freshCache(), "--quiet");
    const r = await withHubEnv(endpoint, freshCache(), () => run(command, ref));
    expect(r.code).toBe(exitCode);
    expect(pulled.code).toBe(exitCode);
    expect(r.stdout).toBe("");
    const firstLine = (text: string) => text.split("\n").find((line) => line.startsWith("toolwright "));
    expect(firstLine(r.stderr)).toBe(firstLine(pulled.stderr)!.replace("toolwright pull:", `toolwright ${command}:`));
    if (exitCode === 2) expect(r.stderr).toContain(`Usage: toolwright ${command}`);
  });
});

describe("toolwright serve hf:…", () => {
  // serve downloads as chat does: a failure is the one line pull prints and exit 1 (2 for a malformed
  // reference), not a stack trace; the port is checked and free, so the download is what fails.
  it.each(DOWNLOAD_FAILURES)("%s: the line `toolwright pull` prints, exit %i", async (_what, args, exitCode) => {
    const [ref, endpoint] = (await args()) as [string, string];
    const pulled = await run("pull", ref, "--endpoint", endpoint, "--cache-dir", freshCache(), "--quiet");
    const r = await withHubEnv(endpoint, freshCache(), () => run("serve", ref, "--port", "0"));
    expect(r.code).toBe(exitCode);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((line) => line.startsWith("toolwright "));
    const pulledLine = pulled.stderr.split("\n").find((line) => line.startsWith("toolwright "))!;
    expect(lines[0]).toBe(pulledLine.replace("toolwright pull:", "toolwright serve:"));
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    if (exitCode === 2) expect(r.stderr).toContain("Usage: toolwright serve");
    else expect(lines).toHaveLength(1);
  });
});

describe("loadModel with an hf: path", () => {
  it("downloads into the cache, loads it, and loads the cached file again with the hub gone", async () => {
    const cacheDir = freshCache();
    const received: number[] = [];
    const model1 = await loadModel(REF, {
      download: { endpoint: server.endpoint, cacheDir, onProgress: (p) => received.push(p.receivedBytes) },
    });
    const path = snapshot(cacheDir);
    try {
      expect(model1.path).toBe(path);
      expect(model1.tokenize("hello").length).toBeGreaterThan(0);
      expect(received.at(-1)).toBe(model.length);
    } finally {
      model1.dispose();
    }
    const model2 = await loadModel(REF, { download: { endpoint: await closedEndpoint(), cacheDir } });
    try {
      expect(model2.path).toBe(path);
    } finally {
      model2.dispose();
    }
  });

  it("a download failure is a ModelDownloadError; download options are checked", async () => {
    const cacheDir = freshCache();
    const err = await loadModel(`hf:${REPO}/nope.gguf`, { download: { endpoint: server.endpoint, cacheDir } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_DOWNLOAD_NOT_FOUND");
    await expect(loadModel(REF, { download: { endpont: "x" } as never })).rejects.toThrow(
      /loadModel: options\.download has an unknown key "endpont" \(did you mean "endpoint"\?\)/,
    );
    await expect(loadModel(REF, { download: { signal: AbortSignal.abort() } as never })).rejects.toThrow(
      /options\.signal aborts the download too/,
    );
    await expect(loadModel("hf:nothing")).rejects.toThrow(RangeError);
  });
});

describe("toolwright chat hf:…", () => {
  beforeAll(async () => {
    await ensureCompiledLib();
  }, 300_000);

  it("downloads the model into the cache, then answers", async () => {
    const cache = freshCache();
    const { code, stdout, stderr } = await runCliProcess(["chat", REF, "--max-tokens", "8", "--seed", "1"], "hello\n", {
      TOOLWRIGHT_HF_ENDPOINT: server.endpoint,
      HF_HUB_CACHE: cache,
      TOOLWRIGHT_MODELS_DIR: `${cache}-legacy`,
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/pulling toolwright-test\/Chat-GGUF\/chat-Q8_0\.gguf: 100%/);
    expect(stderr).toMatch(/loading chat-Q8_0\.gguf: 100%/);
    expect(stdout.trim().length).toBeGreaterThan(0);
    expect(readFileSync(snapshot(cache)).equals(model)).toBe(true);
  }, 120_000);
});
