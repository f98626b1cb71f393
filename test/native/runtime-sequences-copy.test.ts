/**
 * A request that lands on one sequence while another holds a longer prefix of its prompt starts from a copy of
 * that prefix (native/batch_copy.cc). On a sliding-window model the sequence-state API writes only the cells
 * within the window of the donor's last position, so a donor longer than its window is copied whole
 * (llama_memory_seq_cp) instead; either way the request gets the tokens of evaluating its prompt alone.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { type Generation, loadModel } from "../../src/index.js";
import { convertTestModel, GEMMA2 } from "../helpers/arch-variants.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GREEDY = { greedy: true } as const;
const WINDOW = 16;

async function tokensOf(generation: Generation): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of generation) out.push(chunk.token);
  return out;
}

test("a sliding-window donor longer than its window gives the tokens of the prompt alone", async () => {
  const path = join(dir, "gemma2.gguf");
  await convertTestModel(await ensureTestModel({ vocab: "llama-spm" }), path, GEMMA2(WINDOW));
  await using gemma = await loadModel(path);
  const tok = (text: string) => Array.from(gemma.tokenize(text, { addSpecial: false }));
  const shared = tok("System: you are a terse assistant who answers every question in one short line, always.");
  expect(shared.length).toBeGreaterThan(WINDOW);
  const rest = tok(" User: tell me about the old days of the river town and the mills along it, please.");
  await using context = await gemma.createContext({ contextSize: 256, threads: 1, sequences: 3 });
  // The donor holds the shared prefix and more, well past the window.
  const donor = context.generate({ tokens: [...shared, ...rest], maxTokens: 0, sampling: GREEDY });
  await donor.text();
  const prompt = [...shared, ...tok(" User: and the bridge?")];
  const copied = context.generate({ tokens: prompt, maxTokens: 12, sampling: GREEDY });
  const copiedTokens = await tokensOf(copied);
  expect(copied.stats.sequence).not.toBe(donor.stats.sequence);
  const donorTokens = [...shared, ...rest];
  let common = 0;
  while (common < prompt.length - 1 && donorTokens[common] === prompt[common]) common++;
  expect(common).toBeGreaterThan(WINDOW);
  expect(copied.stats.promptTokensReused).toBe(common);
  const alone = await tokensOf(
    context.generate({ tokens: prompt, maxTokens: 12, sampling: GREEDY, reusePrefix: false }),
  );
  expect(copiedTokens).toEqual(alone);
});
