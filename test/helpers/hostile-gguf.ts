/**
 * Hostile GGUF files for the reliability tests: a well-formed test model rewritten with one thing
 * changed (a metadata value, a tensor's type, the data alignment).
 *
 * @example
 * const base = await ensureTestModel({ vocab: "llama-spm" });
 * await rewriteGguf(base, "dup.gguf", { metadata: (m) => duplicateToken(m, 5, 6) });
 */
import { readGguf, readTensorBytes } from "../../src/runtime/gguf/index.js";
import type { GgufMetadata } from "../../src/runtime/gguf/types.js";
import { writeGguf, type GgufTensorSpec } from "../../src/runtime/gguf/writer.js";

export interface RewriteOptions {
  metadata?: (m: GgufMetadata) => void;
  tensors?: (t: GgufTensorSpec[]) => void;
  alignment?: number;
}

/** Copies `from` to `to` with the changes applied; returns the new file's data offset. */
export async function rewriteGguf(from: string, to: string, options: RewriteOptions): Promise<number> {
  const file = await readGguf(from);
  const metadata = new Map(file.metadata);
  const tensors: GgufTensorSpec[] = [];
  for (const t of file.tensors)
    tensors.push({ name: t.name, shape: t.shape, type: t.type, data: await readTensorBytes(file, t) });
  options.metadata?.(metadata);
  options.tensors?.(tensors);
  await writeGguf(to, {
    metadata,
    tensors,
    ...(options.alignment === undefined ? {} : { alignment: options.alignment }),
  });
  return (await readGguf(to)).dataOffset;
}

/** The token texts (tokenizer.ggml.tokens) of a metadata map, to edit in place. */
export function tokenTexts(m: GgufMetadata): string[] {
  const v = m.get("tokenizer.ggml.tokens");
  if (v?.type !== "array" || v.itemType !== "string") throw new Error("no tokenizer.ggml.tokens");
  return v.value;
}
