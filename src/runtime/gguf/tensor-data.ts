/** Reading one tensor's bytes on demand (the reader itself never touches tensor data). */
import { open } from "node:fs/promises";
import { GgufError } from "./errors.js";
import type { GgufFileInfo, GgufTensorInfo } from "./types.js";

/**
 * Reads the raw bytes of one tensor of a file returned by `readGguf`.
 *
 * @example
 * const file = await readGguf("model.gguf");
 * const norm = decodeValues(GgmlType.F32, await readTensorBytes(file, "output_norm.weight"));
 */
export async function readTensorBytes(file: GgufFileInfo, tensor: string | GgufTensorInfo): Promise<Uint8Array> {
  const info = typeof tensor === "string" ? file.tensors.find((t) => t.name === tensor) : tensor;
  if (!info) throw new GgufError("INVALID", file.path, `no tensor named ${JSON.stringify(tensor)}`);
  const out = new Uint8Array(info.byteSize);
  const fh = await open(file.path, "r");
  try {
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await fh.read(out, done, out.length - done, info.fileOffset + done);
      if (bytesRead === 0)
        throw new GgufError("TRUNCATED", file.path, `file ends inside tensor "${info.name}"`, info.fileOffset + done);
      done += bytesRead;
    }
  } finally {
    await fh.close();
  }
  return out;
}
