// llama-server's slot persistence in createServer: POST /slots/{id}?action=save|restore writes a sequence's KV
// cache into the slot folder and reads it back (in another server, the cached prompt is reused); it is off
// without a folder, and bad ids, actions and file names are 400s naming the field.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ToolwrightServer } from "../../src/server/index.js";
import { ChatSession, loadModel, type ChatModel } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "toolwright-slots-"));
let model: ChatModel;
const servers: ToolwrightServer[] = [];
const sessions: ChatSession[] = [];

beforeAll(async () => {
  model = await loadModel(await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" }));
});
afterAll(async () => {
  for (const s of servers) await s.close({ timeoutMs: 0 });
  for (const s of sessions) s.dispose();
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A server as `toolwright serve` makes one: a parallel session with slots. */
async function start(slotSavePath?: string): Promise<string> {
  const session = new ChatSession(model, { context: { sequences: 2, contextSize: 1024 } });
  sessions.push(session);
  const backend = {
    path: model.path,
    chat: session.chat.bind(session),
    streamChat: session.streamChat.bind(session),
    slots: 2,
    saveSlot: async (slot: number, path: string) => ({
      tokens: (await session.save(path, { sequence: slot })).tokens.length,
    }),
    restoreSlot: async (slot: number, path: string) => ({
      tokens: (await session.restore(path, { sequence: slot })).tokens.length,
    }),
  };
  const server = createServer(backend, { modelId: "m", ...(slotSavePath ? { slotSavePath } : {}) });
  servers.push(server);
  return (await server.listen({ port: 0 })).url;
}

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

const CHAT = {
  model: "m",
  messages: [
    { role: "system", content: "You are a careful assistant. ".repeat(20) },
    { role: "user", content: "Hello there" },
  ],
  max_tokens: 4,
  temperature: 0,
};

describe("POST /slots/{id}", () => {
  it("saves a slot's cache and restores it into another server, whose next request reuses it", async () => {
    const url = await start(dir);
    expect((await post(url, "/v1/chat/completions", CHAT)).status).toBe(200);
    const saved = [];
    for (const slot of [0, 1]) {
      const res = await post(url, `/slots/${slot}?action=save`, { filename: `s${slot}.bin` });
      expect(res.status).toBe(200);
      saved.push((await res.json()) as { id_slot: number; filename: string; n_saved: number; n_written: number });
    }
    const used = saved.find((s) => s.n_saved > 0)!;
    expect(used).toMatchObject({ filename: expect.stringMatching(/^s[01]\.bin$/) });
    expect(used.n_written).toBeGreaterThan(0);

    const other = await start(dir);
    const restored = await post(other, "/slots/0?action=restore", { filename: used.filename });
    expect(restored.status).toBe(200);
    expect(await restored.json()).toMatchObject({ id_slot: 0, filename: used.filename, n_restored: used.n_saved });
    const answer = (await (await post(other, "/v1/chat/completions", CHAT)).json()) as {
      usage: { prompt_tokens: number; prompt_tokens_details: { cached_tokens: number } };
    };
    expect(answer.usage.prompt_tokens_details.cached_tokens).toBeGreaterThan(answer.usage.prompt_tokens / 2);
  });

  it("is off without a slot folder (501)", async () => {
    const url = await start();
    const res = await post(url, "/slots/0?action=save", { filename: "x.bin" });
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/--slot-save-path/);
  });

  it.each([
    ["a file name with a folder", "/slots/0?action=save", { filename: "../x.bin" }, "filename"],
    ["no file name", "/slots/0?action=save", {}, "filename"],
    ["an unknown action", "/slots/0?action=erase-all", { filename: "x.bin" }, "action"],
    ["a slot the server does not have", "/slots/7?action=save", { filename: "x.bin" }, "id_slot"],
    ["a file that is not there", "/slots/0?action=restore", { filename: "absent.bin" }, "filename"],
  ])("%s is a 400 naming %s", async (_name, path, body, param) => {
    const url = await start(dir);
    const res = await post(url, path, body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
  });
});
