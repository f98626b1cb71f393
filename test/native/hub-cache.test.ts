// The Hugging Face hub cache that huggingface_hub, huggingface-cli and llama.cpp's -hf share: a model placed in
// its layout (refs/main, a snapshot link to a blob) is loaded without a request to the hub; a pull writes the
// layout a huggingface_hub reader accepts; toolwright's older folder is still read; revisions other than main;
// HF_HUB_OFFLINE; the layout of earlier versions on request.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelDownloadError, pullModel } from "../../src/runtime/hub/index.js";
import { loadModel } from "../../src/session/index.js";
import { type HubServer, sha256, startHubServer } from "../helpers/hub-server.js";
import { ensureTestModel } from "../helpers/test-models.js";

const REPO = "toolwright-test/Shared-GGUF";
const FILE = "shared-Q8_0.gguf";
const REF = `hf:${REPO}/${FILE}`;

let model: Buffer;
let server: HubServer;
let root: string;
let n = 0;

beforeAll(async () => {
  model = readFileSync(await ensureTestModel({ vocab: "llama-spm" }));
  server = await startHubServer();
  server.put(REPO, FILE, { content: model });
  root = mkdtempSync(join(tmpdir(), "toolwright-hf-cache-"));
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

/** A fresh hub cache and older folder, and the number of requests the hub has seen so far. */
function fresh() {
  const dir = join(root, `case-${n++}`);
  return { hub: join(dir, "hub"), legacy: join(dir, "legacy"), seen: server.requests.length };
}
const requestsSince = (seen: number) => server.requests.slice(seen).map((r) => `${r.method} ${r.url}`);
const repoDir = (hub: string) => join(hub, "models--toolwright-test--Shared-GGUF");

/** Writes a file into the hub cache as huggingface_hub does: the blob, a relative link to it, the ref. */
function placeInHubCache(hub: string, revision: string, commit: string, file: string, content: Uint8Array): string {
  const blob = join(repoDir(hub), "blobs", sha256(content));
  const link = join(repoDir(hub), "snapshots", commit, ...file.split("/"));
  mkdirSync(dirname(blob), { recursive: true });
  mkdirSync(dirname(link), { recursive: true });
  writeFileSync(blob, content);
  symlinkSync(relative(dirname(link), blob), link);
  if (revision !== commit) {
    mkdirSync(join(repoDir(hub), "refs", ...dirname(revision).split("/")), { recursive: true });
    writeFileSync(join(repoDir(hub), "refs", ...revision.split("/")), commit);
  }
  return link;
}

/** Writes a file into toolwright's older folder as earlier versions did (the file and its record). */
function placeInOlderFolder(legacy: string, file: string, content: Uint8Array): string {
  const path = join(legacy, "hf", "toolwright-test", "Shared-GGUF", "main", file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  const record = {
    repo: REPO,
    file,
    revision: "main",
    url: `${server.endpoint}/${REPO}/resolve/main/${file}`,
    size: content.length,
    sha256: sha256(content),
    etag: sha256(content),
    commit: server.commit(REPO, "main"),
    downloadedAt: "2026-01-01T00:00:00.000Z",
  };
  writeFileSync(`${path}.meta.json`, JSON.stringify(record));
  return path;
}

/** Runs `fn` with environment variables set (undefined: removed), then restores them. */
async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await fn();
  } finally {
    apply(saved);
  }
}

describe("a model another tool put in the hub cache", () => {
  it("is loaded by loadModel(hf:…) from $HF_HUB_CACHE without any request to the hub", async () => {
    const { hub, legacy, seen } = fresh();
    const link = placeInHubCache(hub, "main", server.commit(REPO, "main"), FILE, model);
    const loaded = await withEnv({ HF_HUB_CACHE: hub, HF_HOME: undefined }, () =>
      loadModel(REF, { download: { endpoint: server.endpoint, legacyCacheDir: legacy } }),
    );
    try {
      expect(loaded.path).toBe(link);
      expect(loaded.tokenize("hello").length).toBeGreaterThan(0);
    } finally {
      loaded.dispose();
    }
    expect(requestsSince(seen)).toEqual([]);
  });

  it("is found by a quantization tag; a pull asks the hub (HEAD) and finds it current", async () => {
    const { hub, legacy, seen } = fresh();
    const link = placeInHubCache(hub, "main", server.commit(REPO, "main"), FILE, model);
    const opts = { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy };
    const tagged = await pullModel(`hf:${REPO}:Q8_0`, { ...opts, checkForUpdate: false });
    expect(tagged).toMatchObject({ path: link, file: FILE, source: "cached", checked: false, sha256: sha256(model) });
    expect(requestsSince(seen)).toEqual([]);
    const checked = await pullModel(REF, opts);
    expect(checked).toMatchObject({ path: link, source: "cached", checked: true, commit: server.commit(REPO, "main") });
    expect(requestsSince(seen)).toEqual([`HEAD /${REPO}/resolve/main/${FILE}`]);
  });

  it("of another revision: refs/<revision> is followed; a commit names its snapshot", async () => {
    const { hub, legacy, seen } = fresh();
    const commit = "c".repeat(40);
    const link = placeInHubCache(hub, "v1.0", commit, FILE, model);
    const opts = { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy, checkForUpdate: false };
    expect((await pullModel(REF, { ...opts, revision: "v1.0" })).path).toBe(link);
    expect((await pullModel(REF, { ...opts, revision: commit })).path).toBe(link);
    expect(requestsSince(seen)).toEqual([]);
    // main has no ref: that revision is downloaded, beside v1.0's.
    const main = await pullModel(REF, { ...opts, revision: "main" });
    expect(main.path).toBe(join(repoDir(hub), "snapshots", server.commit(REPO, "main"), FILE));
    expect(readdirSync(join(repoDir(hub), "refs")).sort()).toEqual(["main", "v1.0"]);
  });
});

describe("a pull into the hub cache", () => {
  it("writes what a huggingface_hub reader accepts: ref = commit, snapshot → blob named by sha256", async () => {
    const { hub, legacy } = fresh();
    const pulled = await pullModel(REF, { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy });
    const commit = server.commit(REPO, "main");
    expect(readFileSync(join(repoDir(hub), "refs", "main"), "utf8")).toBe(commit);
    const link = join(repoDir(hub), "snapshots", commit, FILE);
    expect(pulled).toMatchObject({ path: link, source: "downloaded", commit });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(`../../blobs/${sha256(model)}`);
    const blob = realpathSync(link);
    expect(blob).toBe(join(realpathSync(repoDir(hub)), "blobs", sha256(model)));
    expect(sha256(readFileSync(blob))).toBe(sha256(model));
    expect(readdirSync(join(repoDir(hub), "blobs"))).toEqual([sha256(model)]);
  });

  it("links a blob already there (the same content under another revision) without downloading it", async () => {
    const { hub, legacy } = fresh();
    const opts = { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy };
    await pullModel(REF, opts);
    const seen = server.requests.length;
    const pr = await pullModel(REF, { ...opts, revision: "refs/pr/1" });
    expect(pr).toMatchObject({ source: "cached", checked: true });
    expect(pr.path).toBe(join(repoDir(hub), "snapshots", server.commit(REPO, "refs/pr/1"), FILE));
    expect(requestsSince(seen)).toEqual([`HEAD /${REPO}/resolve/refs%2Fpr%2F1/${FILE}`]);
    expect(readFileSync(join(repoDir(hub), "refs", "refs", "pr", "1"), "utf8")).toBe(server.commit(REPO, "refs/pr/1"));
  });

  it("goes to toolwright's own folder instead with TOOLWRIGHT_CACHE_LAYOUT=toolwright", async () => {
    const { hub, legacy } = fresh();
    const pulled = await withEnv({ TOOLWRIGHT_CACHE_LAYOUT: "toolwright" }, () =>
      pullModel(REF, { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy }),
    );
    expect(pulled.path).toBe(join(legacy, "hf", "toolwright-test", "Shared-GGUF", "main", FILE));
    expect(readFileSync(pulled.path).equals(model)).toBe(true);
    expect(existsSync(hub)).toBe(false);
  });
});

describe("toolwright's older folder", () => {
  it("is still read, after the hub cache: without a request, or current after a HEAD", async () => {
    const { hub, legacy, seen } = fresh();
    const older = placeInOlderFolder(legacy, FILE, model);
    const opts = { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy };
    const loaded = await loadModel(REF, { download: opts });
    try {
      expect(loaded.path).toBe(older);
    } finally {
      loaded.dispose();
    }
    expect(await pullModel(`hf:${REPO}`, { ...opts, checkForUpdate: false })).toMatchObject({
      path: older,
      file: FILE,
      checked: false,
    });
    expect(requestsSince(seen)).toEqual([]);
    expect(await pullModel(REF, opts)).toMatchObject({ path: older, source: "cached", checked: true });
    expect(requestsSince(seen)).toHaveLength(1);
    // The same file in the hub cache wins.
    const link = placeInHubCache(hub, "main", server.commit(REPO, "main"), FILE, model);
    expect((await pullModel(REF, { ...opts, checkForUpdate: false })).path).toBe(link);
  });
});

describe("HF_HUB_OFFLINE", () => {
  it("a cached model is used without a request, even by a pull that would check", async () => {
    const { hub, legacy, seen } = fresh();
    const link = placeInHubCache(hub, "main", server.commit(REPO, "main"), FILE, model);
    const pulled = await withEnv({ HF_HUB_OFFLINE: "1" }, () =>
      pullModel(REF, { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy }),
    );
    expect(pulled).toMatchObject({ path: link, source: "cached", checked: false });
    expect(requestsSince(seen)).toEqual([]);
  });

  it.each([
    [REF, FILE],
    [`hf:${REPO}:Q4_K_M`, "Shared-GGUF:Q4_K_M"],
  ])("%s missing: TOOLWRIGHT_OFFLINE in one line, no request", async (ref, named) => {
    const { hub, legacy, seen } = fresh();
    const err = await withEnv({ HF_HUB_OFFLINE: "true" }, () =>
      pullModel(ref, { endpoint: server.endpoint, cacheDir: hub, legacyCacheDir: legacy }).catch((e: unknown) => e),
    );
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as ModelDownloadError).code).toBe("TOOLWRIGHT_OFFLINE");
    expect((err as Error).message).toContain(named);
    expect((err as Error).message).toMatch(/HF_HUB_OFFLINE/);
    expect((err as Error).message).not.toContain("\n");
    expect(requestsSince(seen)).toEqual([]);
  });
});
