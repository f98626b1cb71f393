/**
 * `hf:` model references: which repository and file (or quantization) of the Hugging Face hub a
 * string names.
 *
 *   hf:OWNER/REPO/FILE.gguf              a file at the repository's root
 *   hf:OWNER/REPO/path/in/repo/FILE.gguf a file in a folder
 *   hf:OWNER/REPO:QUANT                  the repository's .gguf file for a quantization (Q4_K_M, Q8_0, ...)
 *   hf:OWNER/REPO                        Q4_K_M, else Q8_0, else the repository's first model file
 */

/** A parsed `hf:` reference. */
export interface HfModelRef {
  /** "OWNER/REPO". */
  repo: string;
  /** The file's path in the repository, when the reference names one. */
  file: string | undefined;
  /** The quantization asked for with `:QUANT`, when the reference names no file. */
  quant: string | undefined;
}

const PREFIX = "hf:";
/** Hub names: letters, digits, `-`, `_` and `.` (not "." or ".."). */
const NAME = /^[A-Za-z0-9_.-]{1,96}$/;
const QUANT = /^[A-Za-z0-9_.-]{1,32}$/;

/**
 * Whether `text` is an `hf:` reference (rather than a file path).
 *
 * @example
 * isHfModelRef("hf:Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf"); // true
 */
export function isHfModelRef(text: string): boolean {
  return text.startsWith(PREFIX);
}

function checkName(part: string, what: string, ref: string): void {
  if (!NAME.test(part) || part === "." || part === "..") {
    throw new RangeError(
      `${JSON.stringify(ref)}: ${what} ${JSON.stringify(part)} is not a hub name (letters, digits, "-", "_" ` +
        `and "." only)`,
    );
  }
}

/**
 * Parses an `hf:` reference; throws a RangeError that says what is wrong with it.
 *
 * @example
 * parseHfModelRef("hf:Qwen/Qwen3-4B-GGUF:Q4_K_M"); // { repo: "Qwen/Qwen3-4B-GGUF", file: undefined, quant: "Q4_K_M" }
 */
export function parseHfModelRef(ref: string): HfModelRef {
  if (!isHfModelRef(ref))
    throw new RangeError(
      `${JSON.stringify(ref)} is not an hf: reference (hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT)`,
    );
  const body = ref.slice(PREFIX.length);
  const parts = body.split("/");
  if (parts.length < 2 || parts[0] === "" || parts[1] === "") {
    throw new RangeError(`${JSON.stringify(ref)}: expected hf:OWNER/REPO/FILE.gguf or hf:OWNER/REPO:QUANT`);
  }
  const owner = parts[0]!;
  let name = parts[1]!;
  let quant: string | undefined;
  if (parts.length === 2) {
    const colon = name.indexOf(":");
    if (colon >= 0) {
      quant = name.slice(colon + 1);
      name = name.slice(0, colon);
      if (!QUANT.test(quant))
        throw new RangeError(
          `${JSON.stringify(ref)}: the quantization ${JSON.stringify(quant)} is not a name such as Q4_K_M`,
        );
    }
  }
  checkName(owner, "the owner", ref);
  checkName(name, "the repository", ref);
  const repo = `${owner}/${name}`;
  if (parts.length === 2) return { repo, file: undefined, quant };
  const path = parts.slice(2);
  for (const segment of path) {
    // The path becomes a path under the cache directory: nothing may climb out of it.
    if (segment === "" || segment === "." || segment === ".." || /[\\:\0-\x1f]/.test(segment)) {
      throw new RangeError(
        `${JSON.stringify(ref)}: the file path ${JSON.stringify(path.join("/"))} has an empty, ".", ".." or ` +
          `invalid segment`,
      );
    }
  }
  const file = path.join("/");
  if (!file.toLowerCase().endsWith(".gguf"))
    throw new RangeError(`${JSON.stringify(ref)}: the file must be a .gguf file, got ${JSON.stringify(file)}`);
  return { repo, file, quant: undefined };
}

/** `split-00001-of-00003.gguf`: llama.cpp loads the first part and finds the others. */
const SPLIT_PART = /-(\d{5})-of-(\d{5})\.gguf$/i;

/** Files a quantization tag never picks: projectors, importance matrices, draft heads. */
function isModelFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  return name.endsWith(".gguf") && !/mmproj|imatrix|^(mtp|eagle3|dflash|dspark)-/.test(name);
}

/**
 * The file of `paths` a quantization tag names (case-insensitive, followed by "." or "-"), as
 * llama.cpp's `-hf REPO:QUANT` picks it; with no tag Q4_K_M, then Q8_0, then the first model
 * file. Of a split model only the first part is picked. Undefined when nothing matches.
 *
 * @example
 * pickQuantFile(["m-Q8_0.gguf", "m-Q4_K_M.gguf"], undefined); // "m-Q4_K_M.gguf"
 */
export function pickQuantFile(paths: readonly string[], quant: string | undefined): string | undefined {
  const candidates = paths.filter((p) => {
    if (!isModelFile(p)) return false;
    const split = SPLIT_PART.exec(p);
    return !split || Number(split[1]) === 1;
  });
  const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  for (const tag of quant !== undefined ? [quant] : ["Q4_K_M", "Q8_0"]) {
    const pattern = new RegExp(`${escapeRegex(tag)}[.-]`, "i");
    const hit = candidates.find((p) => pattern.test(p));
    if (hit !== undefined) return hit;
  }
  return quant === undefined ? candidates[0] : undefined;
}

/** The bits of a file's quantization tag (the last "-" part of its name: "Q4_K_M" 4, "f16" 16), 0 when none. */
function quantBits(path: string): number {
  const name = path.slice(path.lastIndexOf("/") + 1).replace(SPLIT_PART, ".gguf");
  const tag =
    name
      .replace(/\.gguf$/i, "")
      .split("-")
      .pop() ?? "";
  const digits = /\d+/.exec(tag);
  return digits ? Number(digits[0]) : 0;
}

/**
 * The projector ("mmproj") file of `paths` for the model file `modelFile`, as llama.cpp's `-hf` picks it: a .gguf
 * whose name has "mmproj", in the model's folder or one above it (the deepest first), then the one whose
 * quantization is closest to the model's. Undefined when the repository has none.
 *
 * @example
 * pickProjectorFile(["m-Q4_K_M.gguf", "mmproj-f16.gguf", "mmproj-Q8_0.gguf"], "m-Q4_K_M.gguf"); // "mmproj-Q8_0.gguf"
 */
export function pickProjectorFile(paths: readonly string[], modelFile: string): string | undefined {
  const modelDirs = modelFile.split("/").slice(0, -1);
  const bits = quantBits(modelFile);
  let best: { path: string; depth: number; diff: number } | undefined;
  for (const path of paths) {
    const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
    if (!name.endsWith(".gguf") || !name.includes("mmproj")) continue;
    const dirs = path.split("/").slice(0, -1);
    if (dirs.length > modelDirs.length || dirs.some((d, i) => d !== modelDirs[i])) continue;
    const candidate = { path, depth: dirs.length, diff: Math.abs(quantBits(path) - bits) };
    if (!best || candidate.depth > best.depth || (candidate.depth === best.depth && candidate.diff < best.diff))
      best = candidate;
  }
  return best?.path;
}
