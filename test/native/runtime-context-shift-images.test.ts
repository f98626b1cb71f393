/**
 * Context shift with images (native/batch_shift.cc) on a tiny model with a random-weight projector:
 * an image is moved whole with the kept tail or dropped whole with the span, and a prompt with another
 * image where the cache has one is no cache minus a span (it is evaluated after the shared prefix).
 * llama.cpp checks each decode's positions against the cache, so a wrong shift would fail the next turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, type MediaPrompt, type Model } from "../../src/index.js";
import { makePng } from "../helpers/png.js";
import { writeProjector } from "../helpers/projector-model.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-shift-images-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RED = makePng(16, 16, () => [230, 20, 20]);
const STRIPES = makePng(40, 24, (x) => (x % 4 < 2 ? [0, 0, 0] : [250, 250, 250]));
const HEAD = "System: you are a terse assistant who answers every question in one short line.\n";
const OLD = "User: tell me about the old days of the river town and the mills along it.\n";
const KEPT = "User: and what happened to the bridge over the river after the great flood of that spring?\n";
const NEW = "User: thanks, one more thing.\n";

let model: Model;
beforeAll(async () => {
  const projector = join(dir, "mmproj.gguf");
  await writeProjector(projector, { textEmbedding: 64, seed: 3 });
  model = await loadModel(await ensureTestModel({ vocab: "qwen2" }), { projector });
});
afterAll(() => model?.dispose());

/** Text with `{image}` where the image goes, tokenized with it (or as text when there is none). */
async function prompt(text: string, image?: Uint8Array): Promise<{ tokens: number[]; media?: MediaPrompt }> {
  if (image === undefined) return { tokens: Array.from(model.tokenize(text, { addSpecial: false })) };
  const media = await model.tokenizeWithImages(text.replace("{image}", model.projector!.marker), [image], {
    addSpecial: false,
  });
  return { tokens: Array.from(media.tokens), media };
}

async function run(context: Context, p: { tokens: number[]; media?: MediaPrompt }, maxTokens: number) {
  const g = context.generate({
    tokens: p.media ? Int32Array.from(p.tokens) : p.tokens,
    ...(p.media ? { media: p.media } : {}),
    maxTokens,
    sampling: { greedy: true },
    contextShift: true,
  });
  await g.text();
  return g;
}

const CASES: { name: string; cached: [string, Uint8Array?]; next: [string, Uint8Array?]; shifts: boolean }[] = [
  {
    name: "an image in the kept tail moves whole with it",
    cached: [`${HEAD}${OLD}User: {image}\n${KEPT}`, RED],
    next: [`${HEAD}User: {image}\n${KEPT}${NEW}`, RED],
    shifts: true,
  },
  {
    name: "an image in the dropped span goes whole with it",
    cached: [`${HEAD}User: {image}\n${OLD}${KEPT}`, RED],
    next: [`${HEAD}${KEPT}${NEW}`],
    shifts: true,
  },
  {
    name: "another image where the cache has one: no shift, the image is evaluated",
    cached: [`${HEAD}User: {image}\n${KEPT}`, RED],
    next: [`${HEAD}User: {image}\n${KEPT}${NEW}`, STRIPES],
    shifts: false,
  },
];

describe("context shift with images", () => {
  test.each(CASES)("$name", async ({ cached, next, shifts }) => {
    await using context = await model.createContext({ contextSize: 512, threads: 1 });
    await run(context, await prompt(...cached), 0);
    const p = await prompt(...next);
    const g = await run(context, p, 4);
    expect(g.stats.promptTokensEvaluated).toBe(p.tokens.length - g.stats.promptTokensReused);
    for (const image of p.media?.images ?? []) {
      // The reused part ends before the image or after it, never inside.
      const end = g.stats.promptTokensReused;
      expect(end <= image.offset || end >= image.offset + image.length).toBe(true);
    }
    if (shifts) {
      expect(g.stats.promptTokensShifted).toBeGreaterThan(16);
      expect(g.stats.promptTokensEvaluated).toBeLessThan(p.tokens.length / 3);
      const image = p.media?.images[0];
      if (image) expect(g.stats.promptTokensReused).toBeGreaterThanOrEqual(image.offset + image.length);
    } else {
      expect(g.stats.promptTokensShifted).toBe(0);
      expect(g.stats.promptTokensReused).toBeLessThanOrEqual(p.media!.images[0]!.offset);
    }
    // The next turn continues the cache the shift left (llama.cpp refuses positions that do not follow it).
    const more = { tokens: [...p.tokens, ...(await prompt(NEW)).tokens], ...(p.media ? { media: p.media } : {}) };
    const h = await run(context, more, 2);
    expect(h.stats.promptTokensReused).toBeGreaterThanOrEqual(p.tokens.length - 1);
  });
});
