// Fuzz target: the TypeScript GGUF reader (src/runtime/gguf/reader.ts). The input is a whole GGUF
// file, written to one scratch file (readGguf reads a path). Expected: the file's header and
// metadata or a GgufError naming what is wrong; any other exception, a hang or a blow-up is a finding.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GgufError, readGguf } from "../../../src/runtime/gguf/index.js";
import { expectOnly } from "../expect.js";
import { ggufSeeds } from "../gguf-seeds.js";

const SCRATCH = join(process.env.TMPDIR || tmpdir(), `toolwright-gguf-fuzz-${process.pid}.gguf`);

export async function fuzz(data: Buffer): Promise<void> {
  writeFileSync(SCRATCH, data);
  try {
    const info = await readGguf(SCRATCH);
    JSON.stringify(info, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
  } catch (e) {
    expectOnly(e, [GgufError]);
  }
}

/** Small GGUF files written by the project's writer (fuzz/js/gguf-seeds.ts). */
export function seeds(): Promise<[string, Uint8Array][]> {
  return ggufSeeds();
}
