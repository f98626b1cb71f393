/**
 * `toolwright chat --projector --image` and `/image`: the compiled CLI as a child process on a tiny
 * random-weight model and projector; the image changes the answer, and every mistake exits with a
 * message naming the flag or the file.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureCompiledLib } from "../helpers/compiled-lib.js";
import { makePng } from "../helpers/png.js";
import { writeProjector } from "../helpers/projector-model.js";
import { runCliProcess } from "../helpers/run-cli.js";
import { ensureTestModel } from "../helpers/test-models.js";

describe("toolwright chat with images", () => {
  let model: string;
  let projector: string;
  let red: string;
  let stripes: string;
  beforeAll(async () => {
    await ensureCompiledLib();
    model = await ensureTestModel({ vocab: "qwen2", template: "Qwen-Qwen3-0.6B" });
    const dir = mkdtempSync(join(tmpdir(), "toolwright-chat-images-"));
    projector = join(dir, "mmproj.gguf");
    await writeProjector(projector, { textEmbedding: 64, seed: 5 });
    red = join(dir, "red.png");
    writeFileSync(
      red,
      makePng(16, 16, () => [230, 20, 20]),
    );
    stripes = join(dir, "stripes.png");
    writeFileSync(
      stripes,
      makePng(30, 30, (x) => (x % 6 < 3 ? [0, 0, 0] : [255, 255, 255])),
    );
  }, 300_000);

  const chat = (flags: string[], input: string) =>
    runCliProcess(
      ["chat", model, "--projector", projector, "--max-tokens", "8", "--temperature", "0", "--no-thinking", ...flags],
      input,
    );

  it("--image goes with the first message, /image with the next; the image changes the answer", async () => {
    const withRed = await chat(["--image", red], "What is this?\n");
    expect(withRed.code, withRed.stderr).toBe(0);
    const withStripes = await chat(["--image", stripes], "What is this?\n");
    expect(withStripes.code, withStripes.stderr).toBe(0);
    expect(withStripes.stdout).not.toBe(withRed.stdout);
    const later = await chat([], `/image ${red}\nWhat is this?\n`);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toContain("[red.png goes with the next message]");
    expect(later.stdout).toBe(withRed.stdout);
  }, 60_000);

  it.each([
    ["--image without --projector", ["chat", "MODEL", "--image", "x.png"], 2, /--image needs --projector/],
    [
      "a missing image",
      ["chat", "MODEL", "--projector", "P", "--image", "/nonexistent.png"],
      1,
      /image \/nonexistent.png: no such file/,
    ],
    [
      "a missing projector",
      ["chat", "MODEL", "--projector", "/nonexistent.gguf"],
      1,
      /--projector: .*nonexistent\.gguf/,
    ],
  ])(
    "%s exits with an error naming it",
    async (_name, argv, code, message) => {
      const args = argv.map((a) => (a === "MODEL" ? model : a === "P" ? projector : a));
      const r = await runCliProcess(args, "hi\n");
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(message);
    },
    60_000,
  );

  it("/image on a model without a projector is reported and the chat goes on", async () => {
    const r = await runCliProcess(["chat", model, "--max-tokens", "4"], `/image ${red}\nhi\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\/image needs --projector/);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
  }, 60_000);
});
