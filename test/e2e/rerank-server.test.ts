/**
 * The server's rerank API (`/v1/rerank`, llama-server's shape) on a random-weight BERT reranker:
 * results sorted by score with indices back into the request, `top_n`, `return_documents`,
 * usage, the aliases, and 400s naming the field for bad bodies, a model that cannot rank and a
 * document over the context.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type ToolwrightServer } from "../../src/server/index.js";
import { loadModel, type ChatModel } from "../../src/session/index.js";
import { writeBertModel } from "../helpers/reranker-model.js";
import { ensureTestModel, vocabPath } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "toolwright-rerank-server-"));
let reranker: ChatModel;
let chatModel: ChatModel;
let server: ToolwrightServer;
let chatServer: ToolwrightServer;
let url: string;
let chatUrl: string;
beforeAll(async () => {
  const path = join(dir, "reranker.gguf");
  await writeBertModel(vocabPath("bert-bge"), path, { head: "rank" });
  reranker = await loadModel(path, { gpu: false });
  chatModel = await loadModel(await ensureTestModel({ vocab: "llama-spm" }), { gpu: false });
  server = createServer(reranker, { modelId: "ranker" });
  ({ url } = await server.listen({ port: 0 }));
  chatServer = createServer(chatModel);
  ({ url: chatUrl } = await chatServer.listen({ port: 0 }));
});
afterAll(async () => {
  await server?.close({ timeoutMs: 0 });
  await chatServer?.close({ timeoutMs: 0 });
  reranker?.dispose();
  chatModel?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const QUERY = "what does a cat eat?";
const DOCUMENTS = ["Cats eat meat.", "The Eiffel Tower is in Paris.", "A kitten drinks milk.", "Ships sail.", "x"];

interface Result {
  index: number;
  relevance_score: number;
  document?: { text: string };
}
interface Body {
  model: string;
  object: string;
  results: Result[];
  usage: { prompt_tokens: number; total_tokens: number };
  error?: { message: string; type: string; param: string | null; code: string | null };
}

async function post(body: unknown, path = "/v1/rerank", base = url): Promise<{ status: number; body: Body }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

describe("/v1/rerank", () => {
  it("every document, best first, each index mapping back to its score; usage counts the pairs", async () => {
    const scores = await reranker.rank(QUERY, DOCUMENTS);
    const { status, body } = await post({ model: "ranker", query: QUERY, documents: DOCUMENTS });
    expect(status).toBe(200);
    expect(body.model).toBe("ranker");
    expect(body.object).toBe("list");
    expect(body.results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3, 4]);
    for (const r of body.results) {
      expect(r.relevance_score).toBeCloseTo(scores[r.index]!, 4);
      expect(r.document).toBeUndefined();
    }
    const sorted = body.results.map((r) => r.relevance_score);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));
    const tokens = DOCUMENTS.reduce((sum, d) => sum + reranker.rankTokens(QUERY, d).length, 0);
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
  });

  it("top_n keeps the best n; return_documents adds each result's text; { text } documents are read", async () => {
    const all = (await post({ model: "ranker", query: QUERY, documents: DOCUMENTS })).body.results;
    const { status, body } = await post({
      query: QUERY,
      documents: DOCUMENTS.map((text) => ({ text })),
      top_n: 2,
      return_documents: true,
    });
    expect(status).toBe(200);
    expect(body.results.map((r) => r.index)).toEqual(all.slice(0, 2).map((r) => r.index));
    for (const r of body.results) expect(r.document).toEqual({ text: DOCUMENTS[r.index] });
    // A top_n beyond the documents returns them all.
    expect((await post({ query: QUERY, documents: DOCUMENTS, top_n: 50 })).body.results).toHaveLength(5);
  });

  it.each(["/rerank", "/v1/reranking", "/reranking"])("%s is the same route", async (path) => {
    const a = await post({ query: QUERY, documents: DOCUMENTS });
    const b = await post({ query: QUERY, documents: DOCUMENTS }, path);
    expect(b.status).toBe(200);
    expect(b.body.results).toEqual(a.body.results);
  });

  it.each([
    ["not an object", [1, 2], null, /The request body must be a JSON object/],
    ["no query", { documents: DOCUMENTS }, "query", /Invalid 'query': expected a string, got undefined/],
    ["a number as query", { query: 3, documents: DOCUMENTS }, "query", /Invalid 'query'/],
    ["no documents", { query: QUERY }, "documents", /Invalid 'documents': expected a non-empty array/],
    ["empty documents", { query: QUERY, documents: [] }, "documents", /non-empty array/],
    ["a bad document", { query: QUERY, documents: ["a", 2] }, "documents[1]", /'documents\[1\]'/],
    ["top_n 0", { query: QUERY, documents: DOCUMENTS, top_n: 0 }, "top_n", /Invalid 'top_n'/],
    ["top_n as a string", { query: QUERY, documents: DOCUMENTS, top_n: "2" }, "top_n", /Invalid 'top_n'/],
    [
      "a non-boolean return_documents",
      { query: QUERY, documents: ["a"], return_documents: 1 },
      "return_documents",
      /boolean/,
    ],
    ["an unknown field", { query: QUERY, documents: ["a"], texts: ["a"] }, "texts", /Unrecognized request argument/],
  ])("400 for %s, naming the field", async (_, body, param, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: "invalid_request_error", param });
    expect(res.body.error!.message).toMatch(message);
  });

  it("a document longer than the context: 400 context_length_exceeded naming the document", async () => {
    const res = await post({ query: QUERY, documents: ["short", "word ".repeat(600)] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: "documents[1]", code: "context_length_exceeded" });
  });

  it("a model that is not a reranker: 400 naming model, saying why", async () => {
    const res = await post({ query: QUERY, documents: DOCUMENTS }, "/v1/rerank", chatUrl);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: "model", code: "model_not_supported" });
    expect(res.body.error!.message).toMatch(/is not a reranker: it names no pooling type/);
  });

  it("a model name the server does not serve is a 404; GET is a 405", async () => {
    const res = await post({ model: "other", query: QUERY, documents: DOCUMENTS });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ param: "model", code: "model_not_found" });
    expect((await fetch(`${url}/v1/rerank`)).status).toBe(405);
  });
});
