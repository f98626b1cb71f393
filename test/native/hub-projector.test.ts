// loadModel(hf:…, { projector: "auto" }) pulls the repository's projector file as llama.cpp's -hf picks it, from the
// local test hub into the hub cache; a second load finds both files in the cache without a request.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelDownloadError } from "../../src/runtime/hub/index.js";
import { loadModel } from "../../src/session/index.js";
import { type HubServer, startHubServer } from "../helpers/hub-server.js";
import { writeProjector } from "../helpers/projector-model.js";
import { ensureTestModel } from "../helpers/test-models.js";

const VLM = "toolwright-test/Vision-GGUF";
const TEXT = "toolwright-test/Text-GGUF";

let server: HubServer;
let root: string;
let modelPath: string;

beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "qwen2" });
  root = mkdtempSync(join(tmpdir(), "toolwright-hub-projector-"));
  const projector = async (name: string, seed: number) => {
    const path = join(root, name);
    await writeProjector(path, { textEmbedding: 64, seed });
    return readFileSync(path);
  };
  server = await startHubServer();
  const model = readFileSync(modelPath);
  server.put(VLM, "vlm-Q8_0.gguf", { content: model });
  server.put(VLM, "mmproj-vlm-f16.gguf", { content: await projector("a.gguf", 1) });
  server.put(VLM, "mmproj-vlm-Q8_0.gguf", { content: await projector("b.gguf", 2) });
  server.put(TEXT, "text-Q8_0.gguf", { content: model });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('loadModel(hf:…, { projector: "auto" })', () => {
  it("pulls the mmproj file closest to the model's quantization, then loads both from the cache", async () => {
    const download = { endpoint: server.endpoint, cacheDir: join(root, "hub"), legacyCacheDir: join(root, "old") };
    const first = await loadModel(`hf:${VLM}:Q8_0`, { projector: "auto", download });
    try {
      expect(first.projector?.path).toMatch(/snapshots\/[0-9a-f]+\/mmproj-vlm-Q8_0\.gguf$/);
      expect(first.projector?.vision).toBe(true);
    } finally {
      first.dispose();
    }
    const seen = server.requests.length;
    const again = await loadModel(`hf:${VLM}:Q8_0`, { projector: "auto", download });
    again.dispose();
    expect(server.requests.slice(seen)).toEqual([]);
  });

  it("a repository without a projector file is TOOLWRIGHT_DOWNLOAD_NOT_FOUND naming it", async () => {
    const download = { endpoint: server.endpoint, cacheDir: join(root, "hub2"), legacyCacheDir: join(root, "old2") };
    const err = await loadModel(`hf:${TEXT}:Q8_0`, { projector: "auto", download }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_DOWNLOAD_NOT_FOUND" });
    expect((err as Error).message).toMatch(/has no projector file/);
  });

  it('"auto" with a local model path is a RangeError', async () => {
    await expect(loadModel(modelPath, { projector: "auto" })).rejects.toThrow(
      /"auto" finds the projector of an hf: model/,
    );
  });
});
