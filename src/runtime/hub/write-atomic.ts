/** Writing a small file so a reader sees the old content or the new one, never a part. */
import { rename, rm, writeFile } from "node:fs/promises";

/** Writes `text` to a temporary file beside `path`, then renames it into place. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(temp, text);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
