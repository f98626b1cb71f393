// `toolwright inspect` on broken files says exactly what `readGgufMetadata` says: for a sweep of
// truncations and byte flips of a generated model, the one line on stderr is the reader's own
// message (exit 1), or the file reads and inspect prints its summary (exit 0). Never a crash.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GgufError, readGgufMetadata } from "../../src/runtime/gguf/index.js";
import { xorshiftRandom } from "../helpers/seeded-random.js";
import { ensureTestModel } from "../helpers/test-models.js";
import { runCli as run } from "../helpers/run-cli.js";

let dir: string;
let base: Buffer;
beforeAll(async () => {
  base = readFileSync(await ensureTestModel({ vocab: "llama-spm", template: "Qwen-Qwen3-0.6B" }));
  dir = mkdtempSync(join(tmpdir(), "toolwright-inspect-errors-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Mutants: the file cut at seeded offsets of its header, and single bytes of the header changed. */
function mutants(): { name: string; bytes: Uint8Array }[] {
  const random = xorshiftRandom(17);
  const headerBytes = Math.min(base.length, 600_000);
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < 30; i++) {
    const at = Math.floor(random() * headerBytes);
    out.push({ name: `cut at ${at}`, bytes: base.subarray(0, at) });
  }
  for (let i = 0; i < 30; i++) {
    const at = Math.floor(random() * Math.min(headerBytes, 4096));
    const bytes = Buffer.from(base);
    bytes[at] = Math.floor(random() * 256);
    out.push({ name: `byte ${at} = ${bytes[at]}`, bytes });
  }
  return out;
}

describe("inspect on broken files", () => {
  it("prints readGgufMetadata's message, or reads the file, for every mutant", async () => {
    let failed = 0;
    for (const [i, m] of mutants().entries()) {
      const path = join(dir, `m${i}.gguf`);
      writeFileSync(path, m.bytes);
      let expected: GgufError | undefined;
      try {
        await readGgufMetadata(path);
      } catch (e) {
        expect(e, m.name).toBeInstanceOf(GgufError);
        expected = e as GgufError;
      }
      const r = await run("inspect", path);
      if (expected) {
        failed++;
        expect({ name: m.name, code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
          name: m.name,
          code: 1,
          stderr: `toolwright inspect: ${expected.message}\n`,
          stdout: "",
        });
      } else {
        expect({ name: m.name, code: r.code, stderr: r.stderr }).toEqual({ name: m.name, code: 0, stderr: "" });
      }
    }
    // The sweep does reach the error paths.
    expect(failed).toBeGreaterThan(20);
  });
});
