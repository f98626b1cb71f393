// Every TOOLWRIGHT_* environment variable that the library or the addon reads, and every Hugging Face one
// (HF_*, HUGGING_FACE_*, HUGGINGFACE_*), is documented in the README or docs/: found in the sources by how they
// read it (process.env, envInteger, getenv).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/test-models.js";

/** The files under `dir` (recursively) whose names end in one of `endings`. */
function files(dir: string, endings: string[]): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => endings.some((e) => f.endsWith(e)))
    .map((f) => join(REPO_ROOT, dir, f));
}

/** How the sources read a variable: `env.X`, `env["X"]`, `envInteger("X"`, `getenv("X")`. */
const READS = /(?:\benv\.|\benv\[["']|envInteger\(["']|getenv\(["'])((?:TOOLWRIGHT|HF|HUGGING_?FACE)_[A-Z0-9_]+)/g;

function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  // native/grammar/tool is a developer's benchmark tool, not the addon.
  const sources = [...files("src", [".ts"]), ...files("native", [".cc", ".h"]).filter((f) => !f.includes("tool"))];
  for (const file of sources)
    for (const m of readFileSync(file, "utf8").matchAll(READS)) found.set(m[1]!, file.slice(REPO_ROOT.length + 1));
  return found;
}

describe("environment variables", () => {
  const docs = [join(REPO_ROOT, "README.md"), ...files("docs", [".md"])].map((f) => readFileSync(f, "utf8")).join("\n");
  const read = variablesRead();

  it("finds the variables the sources read (TOOLWRIGHT_DEBUG from the addon among them)", () => {
    expect([...read.keys()]).toEqual(
      expect.arrayContaining(["TOOLWRIGHT_DEBUG", "TOOLWRIGHT_THREADS", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE"]),
    );
  });

  it.each([...read])("%s (read in %s) is documented", (name) => {
    expect(docs).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
