// Images on the runtime: a random-weight projector (LLaVA-style "mlp", llama.cpp's mtmd) loaded with
// a tiny model. An image changes what the model writes, the same image gives the same tokens
// alone, after a cached prefix and batched beside other sequences, and every misuse is a clear error.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Context, loadModel, MediaError, type MediaPrompt, type Model } from "../../src/index.js";
import { makePng } from "../helpers/png.js";
import { writeProjector } from "../helpers/projector-model.js";
import { ensureTestModel } from "../helpers/test-models.js";

const dir = mkdtempSync(join(tmpdir(), "tw-images-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RED = makePng(16, 16, () => [230, 20, 20]);
const STRIPES = makePng(40, 24, (x) => (x % 4 < 2 ? [0, 0, 0] : [250, 250, 250]));
const GRADIENT = makePng(28, 28, (x, y) => [x * 9, y * 9, 128]);

let modelPath: string;
let projectorPath: string;
let model: Model;

beforeAll(async () => {
  modelPath = await ensureTestModel({ vocab: "qwen2" });
  projectorPath = join(dir, "mmproj.gguf");
  await writeProjector(projectorPath, { textEmbedding: 64, seed: 3 });
  model = await loadModel(modelPath, { projector: projectorPath });
});
afterAll(() => model?.dispose());

async function prompt(image: Uint8Array, question = "What is in the picture?"): Promise<MediaPrompt> {
  return model.tokenizeWithImages(`User: ${model.projector!.marker}\n${question}\nAssistant:`, [image]);
}

async function greedy(context: Context, media: MediaPrompt, tokens = media.tokens): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of context.generate({ tokens, media, maxTokens: 8, sampling: { temperature: 0 } }))
    out.push(chunk.token);
  return out;
}

async function fresh(media: MediaPrompt, tokens = media.tokens): Promise<number[]> {
  await using context = await model.createContext({ contextSize: 256 });
  return await greedy(context, media, tokens);
}

describe("a model with a projector", () => {
  test("reports what it reads and tokenizes an image as placeholders", async () => {
    expect(model.projector).toMatchObject({ path: projectorPath, vision: true, audio: false });
    expect(model.projector!.marker.length).toBeGreaterThan(0);
    const media = await prompt(RED);
    expect(media.images).toHaveLength(1);
    const [image] = media.images;
    expect(image!.length).toBe(4); // a 28-pixel square in 14-pixel patches
    const placeholders = [...media.tokens].filter((t) => t < 0);
    expect(placeholders).toHaveLength(4);
    expect(media.tokens[image!.offset]).toBeLessThan(0);
    // The same file gives the same placeholders (the prefix cache matches them); another file others.
    expect((await prompt(RED)).tokens).toEqual(media.tokens);
    expect((await prompt(STRIPES)).tokens).not.toEqual(media.tokens);
  });

  test("the image changes what the model writes, and the same image gives the same tokens", async () => {
    const outputs = await Promise.all([RED, STRIPES, GRADIENT].map(async (image) => fresh(await prompt(image))));
    expect(outputs[0]).toHaveLength(8);
    expect(new Set(outputs.map((o) => o.join(","))).size).toBe(3);
    expect(await fresh(await prompt(STRIPES))).toEqual(outputs[1]);
  });

  test("a cached image is reused by the next prompt, which gives a fresh context's tokens", async () => {
    const first = await prompt(GRADIENT);
    const longer = await prompt(GRADIENT, "What is in the picture? Answer in one word.");
    const expected = await fresh(longer);
    await using context = await model.createContext({ contextSize: 256 });
    await greedy(context, first);
    const generation = context.generate({
      tokens: longer.tokens,
      media: longer,
      maxTokens: 8,
      sampling: { temperature: 0 },
    });
    const tokens: number[] = [];
    for await (const chunk of generation) tokens.push(chunk.token);
    expect(tokens).toEqual(expected);
    const image = longer.images[0]!;
    expect(generation.stats.promptTokensReused).toBeGreaterThanOrEqual(image.offset + image.length);
  });

  test("tokens may go on past the media prompt with text (a second generation of one turn)", async () => {
    const media = await prompt(RED);
    const more = Int32Array.from([...media.tokens, ...model.tokenize(" Red", { addSpecial: false })]);
    expect(await fresh(media, more)).toHaveLength(8);
  });

  test("sequences with different images, batched, give each one's tokens alone", async () => {
    const prompts = await Promise.all([RED, STRIPES, GRADIENT, RED].map((image) => prompt(image)));
    const alone = await Promise.all(prompts.map((p) => fresh(p)));
    await using context = await model.createContext({ contextSize: 512, sequences: 4 });
    const batched = await Promise.all(prompts.map((p) => greedy(context, p)));
    expect(batched).toEqual(alone);
  });
});

describe("images: clear errors", () => {
  test("a model without a projector", async () => {
    await using plain = await loadModel(modelPath);
    expect(plain.projector).toBeUndefined();
    const err = await plain.tokenizeWithImages("<__media__>", [RED]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_NO_PROJECTOR" });
    expect((err as Error).message).toMatch(/projector/);
  });

  test.each([
    ["bytes that are no image", [Buffer.from("not an image at all")], /image 0 .*cannot be decoded/],
    ["more images than markers", [RED, RED], /media markers/],
  ])("%s: TOOLWRIGHT_MEDIA_INVALID", async (_name, images, message) => {
    const err = await model.tokenizeWithImages(`${model.projector!.marker} once`, images).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_MEDIA_INVALID" });
    expect((err as Error).message).toMatch(message);
  });

  test("wrong argument types are TypeErrors naming them", async () => {
    await expect(model.tokenizeWithImages("x", "img" as never)).rejects.toThrow(/images must be an array/);
    await expect(model.tokenizeWithImages("x", ["img" as never])).rejects.toThrow(/images\[0\] must be a Uint8Array/);
  });

  test.each([
    ["for a model of another width", { textEmbedding: 32 }, /mismatch|n_embd/],
    ["of a type mtmd does not know", { textEmbedding: 64, projectorType: "no-such-projector" }, /of-a-type-mtmd/],
  ])("a projector %s fails the load with TOOLWRIGHT_PROJECTOR_FAILED", async (name, shape, message) => {
    const path = join(dir, `${name.replace(/\W+/g, "-")}.gguf`);
    await writeProjector(path, shape);
    const err = await loadModel(modelPath, { projector: path }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: "TOOLWRIGHT_PROJECTOR_FAILED" });
    expect((err as Error).message).toMatch(message);
  });

  test("a missing projector file fails the load", async () => {
    const err = await loadModel(modelPath, { projector: join(dir, "absent.gguf") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/absent\.gguf/);
  });

  test("tokens that do not match the media prompt are RangeErrors", async () => {
    const media = await prompt(RED);
    await using context = await model.createContext({ contextSize: 256 });
    const image = media.images[0]!;
    const cut = media.tokens.slice(0, image.offset + 2);
    expect(() => context.generate({ tokens: cut, media })).toThrow(/image|end with text/);
    const other = await prompt(STRIPES);
    expect(() => context.generate({ tokens: other.tokens, media })).toThrow(RangeError);
    expect(() => context.generate({ prompt: "x", media })).toThrow(TypeError);
    expect(() => context.generate({ tokens: media.tokens, media: {} as never })).toThrow(/MediaPrompt/);
  });
});
