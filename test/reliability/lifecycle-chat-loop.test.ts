// 1,000 chats in a loop on one model (a server's life in small): no crash, no hang, and resident
// memory levels off. RSS is sampled after a warm-up (allocators, caches and the template's
// analysis are in place by then) and at the end; the growth over the next 900 chats must stay
// within a bound far below what a per-chat leak of a context, a sampler or a grammar would add.
import { beforeAll, expect, it } from "vitest";
import { describeOutcome, isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

const CHATS = 1000;
const WARMUP = 100;
/** Growth allowed after the warm-up: a context (KV cache) leaked per chat would add ~1 MiB each. */
const GROWTH_BOUND_MIB = 64;

let path: string;
beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" });
});

it(`${CHATS} chats in a loop: RSS grows less than ${GROWTH_BOUND_MIB} MiB after ${WARMUP}`, async () => {
  const body = `
const model = await lib.loadModel(${JSON.stringify(path)});
const tools = [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: {
  type: "string", enum: ["Paris", "Oslo"] } }, required: ["city"] } }, execute: ({ city }) => ({ city, t: 21 }) }];
const mib = () => process.memoryUsage().rss / 1048576;
let warm = 0;
const reasons = {};
for (let i = 0; i < ${CHATS}; i++) {
  // Mostly plain chats; every tenth a tool call run by the runner, every tenth a fresh session (a
  // context each): every kind of object a chat creates is made and freed many times over.
  const options = { messages: [{ role: "user", content: "Hi " + i }], maxTokens: 4, sampling: { seed: i } };
  let r;
  if (i % 10 === 1) r = await model.chat({ ...options, tools, toolChoice: "required", maxTokens: 48, maxSteps: 2 });
  else if (i % 10 === 2) { const s = new lib.ChatSession(model, { context: { contextSize: 256 } });
    r = await s.chat(options); s.dispose(); }
  else r = await model.chat(options);
  reasons[r.finishReason] = (reasons[r.finishReason] ?? 0) + 1;
  if (i === ${WARMUP - 1}) { globalThis.gc?.(); warm = mib(); }
}
globalThis.gc?.();
const end = mib();
model.dispose();
return { warm, end, growth: end - warm, reasons };
`;
  // The timeout only tells a hang from a slow run on a loaded machine: far above the ~1 minute it takes.
  const r = await isolated(body, { timeoutMs: 1_500_000 });
  expect(r.kind, describeOutcome(r)).toBe("returned");
  const v = r.value as { warm: number; end: number; growth: number; reasons: Record<string, number> };
  expect(Object.values(v.reasons).reduce((a, b) => a + b, 0)).toBe(CHATS);
  expect(
    v.growth,
    `RSS ${v.warm.toFixed(0)} MiB after ${WARMUP} chats, ${v.end.toFixed(0)} MiB after ${CHATS}`,
  ).toBeLessThan(GROWTH_BOUND_MIB);
}, 1_600_000);
