// pullModel against a local stand-in for the Hugging Face hub (test/helpers/hub-server.ts): the
// bytes and sha256 of a generated model arrive intact through redirects, byte ranges, a dropped
// connection, an abort and a resume; a wrong sha256, a missing file, a gated repository and an
// unreachable hub give clear errors of documented codes. Downloads go to the Hugging Face hub cache's layout
// (hub-cache.test.ts checks the layout itself, the older folder and offline use).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AbortError } from "../../src/runtime/errors.js";
import {
  type DownloadProgress,
  ModelDownloadError,
  hfCacheDir,
  modelCacheDir,
  parseHfModelRef,
  pullModel,
} from "../../src/runtime/hub/index.js";
import { hubEndpoint, hubOffline } from "../../src/runtime/hub/hub-http.js";
import { pickQuantFile } from "../../src/runtime/hub/model-ref.js";
import { closedEndpoint, type HubServer, sha256, startHubServer } from "../helpers/hub-server.js";
import { ensureTestModel } from "../helpers/test-models.js";

const REPO = "toolwright-test/Tiny-GGUF";
const FILE = "tiny-Q8_0.gguf";
const REF = `hf:${REPO}/${FILE}`;

let model: Buffer;
let server: HubServer;
let root: string;
/** The Hugging Face hub cache of the test, and toolwright's older folder beside it. */
let cacheDir: string;
let legacyCacheDir: string;
let n = 0;

beforeAll(async () => {
  model = readFileSync(await ensureTestModel({ vocab: "llama-spm" }));
  server = await startHubServer();
  server.put(REPO, FILE, { content: model });
  root = mkdtempSync(join(tmpdir(), "toolwright-pull-"));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
// Each test pulls into a fresh cache and starts with no faults.
let requestsBefore = 0;
afterEach(() => {
  server.dropAfter(0, 0);
  server.holdBodies(undefined);
  server.put(REPO, FILE, { content: model });
});
function freshCache(): string {
  cacheDir = join(root, `cache-${n}`, "hub");
  legacyCacheDir = join(root, `cache-${n++}`, "legacy");
  requestsBefore = server.requests.length;
  return cacheDir;
}
const repoDir = () => join(cacheDir, "models--toolwright-test--Tiny-GGUF");
/** Where the hub cache keeps a file of a revision (the commit the test hub gives it now). */
const snapshot = (file = FILE, revision = "main") =>
  join(repoDir(), "snapshots", server.commit(REPO, revision), ...file.split("/"));
const blob = (content: Uint8Array = model) => join(repoDir(), "blobs", sha256(content));
const lockDir = () => join(cacheDir, ".locks", "models--toolwright-test--Tiny-GGUF");
const newRequests = () => server.requests.slice(requestsBefore);
const contentGets = () => newRequests().filter((r) => r.method === "GET" && r.url.startsWith("/cdn/"));
const opts = (extra: object = {}) => ({ endpoint: server.endpoint, cacheDir, legacyCacheDir, ...extra });

describe("pulling a file", () => {
  it("downloads into the cache through the hub's redirect, with the hub's sha256, and reports progress", async () => {
    freshCache();
    const progress: DownloadProgress[] = [];
    const pulled = await pullModel(REF, opts({ onProgress: (p: DownloadProgress) => progress.push(p) }));
    expect(pulled.path).toBe(snapshot());
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(pulled).toMatchObject({
      repo: REPO,
      file: FILE,
      revision: "main",
      commit: server.commit(REPO, "main"),
      sizeBytes: model.length,
      sha256: sha256(model),
      source: "downloaded",
      checked: true,
    });
    expect(progress[0]).toEqual({ receivedBytes: 0, totalBytes: model.length, resumedFromBytes: 0 });
    expect(progress.at(-1)!.receivedBytes).toBe(model.length);
    for (let i = 1; i < progress.length; i++)
      expect(progress[i]!.receivedBytes).toBeGreaterThanOrEqual(progress[i - 1]!.receivedBytes);
    // Nothing but the blob, its snapshot link and the ref is left behind (no lock, no partial file).
    expect(readdirSync(join(repoDir(), "blobs"))).toEqual([sha256(model)]);
    expect(readdirSync(join(repoDir(), "snapshots", server.commit(REPO, "main")))).toEqual([FILE]);
    expect(readdirSync(lockDir())).toEqual([]);
    expect(existsSync(join(root, `cache-${n - 1}`, "legacy"))).toBe(false);
    expect(newRequests().map((r) => r.method)).toEqual(["HEAD", "GET", "GET"]);
  });

  it("a second pull asks the hub (HEAD): the cache is current; checkForUpdate: false asks nothing", async () => {
    freshCache();
    await pullModel(REF, opts());
    requestsBefore = server.requests.length;
    const again = await pullModel(REF, opts());
    expect(again).toMatchObject({ source: "cached", checked: true, sha256: sha256(model) });
    expect(newRequests().map((r) => r.method)).toEqual(["HEAD"]);
    requestsBefore = server.requests.length;
    const unchecked = await pullModel(REF, opts({ checkForUpdate: false }));
    expect(unchecked).toMatchObject({ source: "cached", checked: false, path: again.path });
    expect(newRequests()).toEqual([]);
  });

  it("downloads a new version when the hub's file changed", async () => {
    freshCache();
    await pullModel(REF, opts());
    const changed = Buffer.from(model); // a copy
    changed[changed.length - 1]! ^= 0xff;
    server.put(REPO, FILE, { content: changed });
    const pulled = await pullModel(REF, opts());
    expect(pulled).toMatchObject({ source: "downloaded", sha256: sha256(changed) });
    expect(readFileSync(pulled.path).equals(changed)).toBe(true);
  });

  it("a file in a folder of the repository, and a small file kept in git (no LFS, no sha256 from hub)", async () => {
    freshCache();
    server.put(REPO, "sub/dir/inner.gguf", { content: model });
    server.put(REPO, "small.gguf", { content: model.subarray(0, 1000), lfs: false });
    const inner = await pullModel(`hf:${REPO}/sub/dir/inner.gguf`, opts());
    expect(inner.path).toBe(snapshot("sub/dir/inner.gguf"));
    expect(readlinkSync(inner.path)).toBe(join("..", "..", "..", "..", "blobs", sha256(model)));
    expect(readFileSync(inner.path).equals(model)).toBe(true);
    const small = await pullModel(`hf:${REPO}/small.gguf`, opts());
    expect(readFileSync(small.path).equals(model.subarray(0, 1000))).toBe(true);
    expect(small.sha256).toBe(sha256(model.subarray(0, 1000)));
    // A file kept in git is stored under its git ETag (a sha1), as huggingface_hub stores it.
    expect(readlinkSync(small.path)).toMatch(/^\.\.\/\.\.\/blobs\/[0-9a-f]{40}$/);
  });

  it("a revision other than main goes to the resolve URL and its own snapshot and ref", async () => {
    freshCache();
    const pulled = await pullModel(REF, opts({ revision: "refs/pr/1" }));
    expect(pulled.path).toBe(snapshot(FILE, "refs/pr/1"));
    expect(server.commit(REPO, "refs/pr/1")).not.toBe(server.commit(REPO, "main"));
    expect(readFileSync(join(repoDir(), "refs", "refs", "pr", "1"), "utf8")).toBe(server.commit(REPO, "refs/pr/1"));
    expect(newRequests()[0]!.url).toBe(`/${REPO}/resolve/refs%2Fpr%2F1/${FILE}`);
  });

  it("sends HF_TOKEN (or options.token) to the hub as a bearer token", async () => {
    freshCache();
    await pullModel(REF, opts({ token: "hf_secret" }));
    expect(newRequests()[0]!.headers.authorization).toBe("Bearer hf_secret");
    freshCache();
    const saved = process.env.HF_TOKEN;
    process.env.HF_TOKEN = "hf_from_env";
    try {
      await pullModel(REF, opts());
    } finally {
      if (saved === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = saved;
    }
    expect(newRequests()[0]!.headers.authorization).toBe("Bearer hf_from_env");
  });
});

describe("quantization tags", () => {
  const QREPO = "toolwright-test/Quants-GGUF";
  beforeAll(() => {
    for (const name of ["Quants-Q8_0.gguf", "Quants-Q4_K_M.gguf", "mmproj-Quants-Q4_K_M.gguf", "README.md"])
      server.put(QREPO, name, { content: model });
  });

  it.each([
    [`hf:${QREPO}:Q8_0`, "Quants-Q8_0.gguf"],
    [`hf:${QREPO}:q4_k_m`, "Quants-Q4_K_M.gguf"],
    [`hf:${QREPO}`, "Quants-Q4_K_M.gguf"],
  ])("%s picks %s from the hub's listing", async (ref, file) => {
    freshCache();
    const pulled = await pullModel(ref, opts());
    expect(pulled.file).toBe(file);
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(newRequests()[0]!.url).toBe(`/api/models/${QREPO}/tree/main?recursive=true`);
  });

  it("a quantization the repository lacks is TOOLWRIGHT_DOWNLOAD_NOT_FOUND, listing its files", async () => {
    freshCache();
    const err = await pullModel(`hf:${QREPO}:Q5_K_M`, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_DOWNLOAD_NOT_FOUND");
    expect((err as Error).message).toMatch(/Q5_K_M.*Quants-Q4_K_M\.gguf/);
  });

  it.each([
    [["a-Q8_0.gguf", "a-Q4_K_M.gguf"], undefined, "a-Q4_K_M.gguf"],
    [["a-Q8_0.gguf", "a-F16.gguf"], undefined, "a-Q8_0.gguf"],
    [["a-F16.gguf", "b-BF16.gguf"], undefined, "a-F16.gguf"],
    [["mmproj-a-Q4_K_M.gguf", "a-Q4_K_M.gguf"], "Q4_K_M", "a-Q4_K_M.gguf"],
    [
      ["Q4_K_M/a-Q4_K_M-00002-of-00002.gguf", "Q4_K_M/a-Q4_K_M-00001-of-00002.gguf"],
      "Q4_K_M",
      "Q4_K_M/a-Q4_K_M-00001-of-00002.gguf",
    ],
    [["a-Q4_K_M.gguf"], "Q4_K", undefined],
    [["a-IQ4_XS.gguf"], "Q4_K_M", undefined],
  ])("pickQuantFile(%j, %s) is %s", (paths, quant, expected) => {
    expect(pickQuantFile(paths, quant)).toBe(expected);
  });
});

describe("resuming", () => {
  it("a connection dropped mid-download resumes with a Range request and ends with the right bytes", async () => {
    freshCache();
    const half = Math.floor(model.length / 2);
    server.dropAfter(half);
    const pulled = await pullModel(REF, opts());
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(pulled.sha256).toBe(sha256(model));
    const gets = contentGets();
    expect(gets).toHaveLength(2);
    expect(gets[0]!.headers.range).toBeUndefined();
    // It resumes from what it kept: some bytes, at most what the server sent before dropping.
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(gets[1]!.headers.range ?? "")?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(half);
    expect(gets[1]!.headers["if-range"]).toBe(`"${sha256(model)}"`);
  });

  it("gives up after drops without progress, keeps the partial file (TOOLWRIGHT_DOWNLOAD_FAILED)", async () => {
    freshCache();
    server.dropAfter(0, 100);
    const err = await pullModel(REF, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_DOWNLOAD_FAILED");
    expect((err as Error).message).toMatch(/pull again to resume/);
  });

  it("an abort keeps the partial file; the next pull resumes from it", async () => {
    freshCache();
    const controller = new AbortController();
    let released!: () => void;
    server.holdBodies(new Promise<void>((r) => (released = r)));
    server.dropAfter(Math.floor(model.length / 3));
    // The first response sends a third, then drops; abort as soon as some bytes are on disk.
    const first = pullModel(
      REF,
      opts({
        signal: controller.signal,
        onProgress: (p: DownloadProgress) => p.receivedBytes > 0 && controller.abort(),
      }),
    );
    released();
    const err = await first.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(existsSync(blob())).toBe(false);
    expect(existsSync(snapshot())).toBe(false);
    const kept = readFileSync(`${blob()}.incomplete`).length;
    expect(kept).toBeGreaterThan(0);
    expect(readdirSync(lockDir()).filter((f) => f.endsWith(".lock"))).toEqual([]);

    requestsBefore = server.requests.length;
    const progress: DownloadProgress[] = [];
    const pulled = await pullModel(REF, opts({ onProgress: (p: DownloadProgress) => progress.push(p) }));
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(progress[0]).toEqual({ receivedBytes: kept, totalBytes: model.length, resumedFromBytes: kept });
    expect(contentGets()[0]!.headers.range).toBe(`bytes=${kept}-`);
  });

  it("a partial file of another version is not resumed (toolwright's own folder)", async () => {
    freshCache();
    const dest = join(legacyCacheDir, "hf", "toolwright-test", "Tiny-GGUF", "main", FILE);
    await pullModel(REF, opts({ layout: "toolwright" }));
    rmSync(dest);
    rmSync(`${dest}.meta.json`);
    writeFileSync(`${dest}.part`, model.subarray(0, 1000));
    writeFileSync(`${dest}.part.json`, JSON.stringify({ url: "x", sha256: "0".repeat(64), size: model.length }));
    requestsBefore = server.requests.length;
    const pulled = await pullModel(REF, opts({ layout: "toolwright" }));
    expect(pulled.path).toBe(dest);
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(contentGets()[0]!.headers.range).toBeUndefined();
  });

  it("a blob's .incomplete file left by another program (no record of ours) is resumed", async () => {
    freshCache();
    mkdirSync(join(repoDir(), "blobs"), { recursive: true });
    writeFileSync(`${blob()}.incomplete`, model.subarray(0, 1000));
    const pulled = await pullModel(REF, opts());
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(contentGets()[0]!.headers.range).toBe("bytes=1000-");
    expect(existsSync(`${blob()}.incomplete`)).toBe(false);
  });

  it("when If-Range no longer matches, the server's whole file replaces the partial one", async () => {
    freshCache();
    await pullModel(REF, opts());
    rmSync(snapshot());
    rmSync(blob());
    // Right version per the hub's metadata, but a stale content validator: the CDN sends 200.
    writeFileSync(`${blob()}.incomplete`, new Uint8Array(1000).fill(7));
    writeFileSync(
      join(lockDir(), `${sha256(model)}.toolwright-part.json`),
      JSON.stringify({ url: "x", sha256: sha256(model), size: model.length, contentEtag: '"stale"' }),
    );
    requestsBefore = server.requests.length;
    const pulled = await pullModel(REF, opts());
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(contentGets()[0]!.headers["if-range"]).toBe('"stale"');
  });
});

describe("concurrent pulls of one file", () => {
  it("download it once; both get the same complete file", async () => {
    freshCache();
    const [a, b] = await Promise.all([pullModel(REF, opts()), pullModel(REF, opts())]);
    expect(a.path).toBe(b.path);
    expect(readFileSync(a.path).equals(model)).toBe(true);
    expect(contentGets()).toHaveLength(1);
    expect([a.source, b.source].sort()).toEqual(["cached", "downloaded"]);
  });

  it("a live process's lock makes a pull wait (abortable); a lock left by a dead one is taken over", async () => {
    freshCache();
    mkdirSync(lockDir(), { recursive: true });
    const lock = join(lockDir(), `${sha256(model)}.toolwright.lock`);
    writeFileSync(lock, `${process.pid} ${hostname()}`);
    const controller = new AbortController();
    const waiting = pullModel(REF, opts({ signal: controller.signal }));
    // It asked the hub, then waits for the lock: no content request while the lock is held.
    while (!newRequests().some((r) => r.method === "HEAD")) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    expect(contentGets()).toEqual([]);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(AbortError);

    // No process has this pid: the lock is stale.
    writeFileSync(lock, `${2 ** 22 + 12345} ${hostname()}`);
    const pulled = await pullModel(REF, opts());
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });
});

describe("failures", () => {
  it("bytes that differ from the hub's sha256: TOOLWRIGHT_CHECKSUM_MISMATCH, nothing kept", async () => {
    freshCache();
    const bad = Buffer.from(model); // a copy
    bad[100]! ^= 1;
    server.corrupt(REPO, FILE, bad);
    const err = await pullModel(REF, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_CHECKSUM_MISMATCH");
    expect((err as Error).message).toContain(sha256(model));
    expect(readdirSync(join(repoDir(), "blobs"))).toEqual([]);
    expect(existsSync(join(repoDir(), "snapshots"))).toBe(false);
  });

  it("a server sending no GGUF file (an HTML page): TOOLWRIGHT_DOWNLOAD_FAILED, nothing kept", async () => {
    freshCache();
    server.put(REPO, "page.gguf", {
      content: new TextEncoder().encode("<!DOCTYPE html><html>not a model</html>".repeat(100)),
    });
    const err = await pullModel(`hf:${REPO}/page.gguf`, opts()).catch((e: unknown) => e);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_DOWNLOAD_FAILED");
    expect((err as Error).message).toMatch(/starts with "<!DO", not "GGUF"/);
    expect(readdirSync(join(repoDir(), "blobs"))).toEqual([]);
  });

  it.each([
    ["a missing file", `hf:${REPO}/nope.gguf`, "TOOLWRIGHT_DOWNLOAD_NOT_FOUND", /nope\.gguf.*not found.*404/],
    [
      "a missing repository",
      "hf:toolwright-test/Nothing-GGUF/x.gguf",
      "TOOLWRIGHT_DOWNLOAD_NOT_FOUND",
      /not found.*404/,
    ],
    [
      "a missing repository (quantization)",
      "hf:toolwright-test/Nothing-GGUF:Q4_K_M",
      "TOOLWRIGHT_DOWNLOAD_NOT_FOUND",
      /not found.*404/,
    ],
  ])("%s: %s", async (_what, ref, code, message) => {
    freshCache();
    const err = await pullModel(ref, opts()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe(code);
    expect((err as Error).message).toMatch(message);
  });

  it("a gated repository without a token: TOOLWRIGHT_DOWNLOAD_DENIED, naming HF_TOKEN", async () => {
    freshCache();
    server.put("toolwright-test/Gated-GGUF", FILE, { content: model });
    server.gate("toolwright-test/Gated-GGUF");
    const err = await pullModel(`hf:toolwright-test/Gated-GGUF/${FILE}`, opts()).catch((e: unknown) => e);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_DOWNLOAD_DENIED");
    expect((err as ModelDownloadError).status).toBe(401);
    expect((err as Error).message).toMatch(/HF_TOKEN/);
  });

  it("an unreachable hub (connection refused): TOOLWRIGHT_OFFLINE; a cached copy is used if any", async () => {
    freshCache();
    const offline = await closedEndpoint();
    const err = await pullModel(REF, { endpoint: offline, cacheDir, legacyCacheDir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_OFFLINE");
    expect((err as Error).message).toMatch(/cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
    await pullModel(REF, opts());
    const cached = await pullModel(REF, { endpoint: offline, cacheDir, legacyCacheDir });
    expect(cached).toMatchObject({ source: "cached", checked: false });
    expect(readFileSync(cached.path).equals(model)).toBe(true);
  });

  it("an aborted signal rejects at once with an AbortError", async () => {
    freshCache();
    await expect(pullModel(REF, opts({ signal: AbortSignal.abort() }))).rejects.toBeInstanceOf(AbortError);
    expect(newRequests()).toEqual([]);
  });
});

describe("references, options and places", () => {
  it.each([
    [
      "hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
      { repo: "Qwen/Qwen3-0.6B-GGUF", file: "Qwen3-0.6B-Q8_0.gguf", quant: undefined },
    ],
    ["hf:a/b/dir/sub/m.GGUF", { repo: "a/b", file: "dir/sub/m.GGUF", quant: undefined }],
    ["hf:Qwen/Qwen3-4B-GGUF:Q4_K_M", { repo: "Qwen/Qwen3-4B-GGUF", file: undefined, quant: "Q4_K_M" }],
    ["hf:Qwen/Qwen3-4B-GGUF", { repo: "Qwen/Qwen3-4B-GGUF", file: undefined, quant: undefined }],
  ])("parses %s", (ref, expected) => {
    expect(parseHfModelRef(ref)).toEqual(expected);
  });

  it.each([
    ["hf:"],
    ["hf:onlyowner"],
    ["hf:a/b/model.bin"],
    ["hf:a/b/../../etc/x.gguf"],
    ["hf:a/b//x.gguf"],
    ["hf:a b/c/x.gguf"],
    ["hf:../b/x.gguf"],
    ["hf:a/b:"],
    ["hf:a/b:Q4 K"],
    ["./model.gguf"],
  ])("rejects %s with a RangeError", async (ref) => {
    expect(() => parseHfModelRef(ref)).toThrow(RangeError);
  });

  it.each([
    [{ cacheDir: "" }, RangeError, /cacheDir must not be empty/],
    [{ legacyCacheDir: "" }, RangeError, /legacyCacheDir must not be empty/],
    [{ layout: "hf" }, RangeError, /options\.layout must be "huggingface" or "toolwright", got "hf"/],
    [{ revision: ".." }, RangeError, /options\.revision/],
    [{ endpoint: "ftp://x" }, RangeError, /http\(s\) URL/],
    [{ chekForUpdate: true }, TypeError, /did you mean "checkForUpdate"/],
    [{ onProgress: 1 }, TypeError, /options\.onProgress must be a function/],
  ])("rejects options %j", async (options, type, message) => {
    await expect(pullModel(REF, options as never)).rejects.toThrow(type);
    await expect(pullModel(REF, options as never)).rejects.toThrow(message);
  });

  it.each([
    [{}, "/home/u/.cache/toolwright/models"],
    [{ XDG_CACHE_HOME: "/x/cache" }, "/x/cache/toolwright/models"],
    [{ XDG_CACHE_HOME: "relative/ignored" }, "/home/u/.cache/toolwright/models"],
    [{ XDG_CACHE_HOME: "/x/cache", TOOLWRIGHT_CACHE_DIR: "/tw" }, "/tw/models"],
    [{ TOOLWRIGHT_CACHE_DIR: "/tw", TOOLWRIGHT_MODELS_DIR: "/models" }, "/models"],
  ])("modelCacheDir(%j) is %s", (env, expected) => {
    const home = process.env.HOME;
    process.env.HOME = "/home/u";
    try {
      expect(modelCacheDir(env)).toBe(expected);
    } finally {
      process.env.HOME = home;
    }
  });

  it.each([
    [{}, "/home/u/.cache/huggingface/hub"],
    [{ XDG_CACHE_HOME: "/x/cache" }, "/x/cache/huggingface/hub"],
    [{ XDG_CACHE_HOME: "/x/cache", HF_HOME: "~/hf" }, "/home/u/hf/hub"],
    [{ HF_HOME: "/hf", HUGGINGFACE_HUB_CACHE: "/old" }, "/old"],
    [{ HF_HOME: "/hf", HUGGINGFACE_HUB_CACHE: "/old", HF_HUB_CACHE: "/hub" }, "/hub"],
    [{ TOOLWRIGHT_MODELS_DIR: "/models" }, "/home/u/.cache/huggingface/hub"],
  ])("hfCacheDir(%j) is %s", (env, expected) => {
    const home = process.env.HOME;
    process.env.HOME = "/home/u";
    try {
      expect(hfCacheDir(env)).toBe(expected);
    } finally {
      process.env.HOME = home;
    }
  });

  it.each([
    [{}, false],
    [{ HF_HUB_OFFLINE: "1" }, true],
    [{ HF_HUB_OFFLINE: "yes" }, true],
    [{ HF_HUB_OFFLINE: "True" }, true],
    [{ HF_HUB_OFFLINE: "0" }, false],
    [{ HF_HUB_OFFLINE: "" }, false],
  ])("hubOffline(%j) is %s", (env, expected) => {
    expect(hubOffline(env)).toBe(expected);
  });

  it.each([
    [undefined, {}, "https://huggingface.co"],
    [undefined, { HF_ENDPOINT: "https://hf-mirror.com/" }, "https://hf-mirror.com"],
    [undefined, { HF_ENDPOINT: "https://a", TOOLWRIGHT_HF_ENDPOINT: "http://b:8080" }, "http://b:8080"],
    ["http://c/", { TOOLWRIGHT_HF_ENDPOINT: "http://b" }, "http://c"],
  ])("hubEndpoint(%s, %j) is %s", (option, env, expected) => {
    expect(hubEndpoint(option, env)).toBe(expected);
  });
});
