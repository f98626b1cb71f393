// MaskBench schemas for the grammar benches (bench:grammar, bench:grammar-cache): where they
// are, their order (one seeded shuffle, so every bench and run sees the same schemas) and each
// schema's first valid instance written as MaskBench's Python harness writes it.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { sharedDir, sharedPath } from "../lib/shared-dir.mjs";

export const MASKBENCH = sharedPath("maskbench-dev").path ?? join(sharedDir(), "maskbench-dev");

// Python's json.dumps(data, ensure_ascii=False): ", " and ": " separators.
export function pyJson(v) {
  if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
  if (v !== null && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`)
      .join(", ")}}`;
  return JSON.stringify(v);
}

// Deterministic pick of n items (seeded shuffle), so every run benches the same schemas.
export function pick(items, n, seed = 7) {
  const a = [...items];
  let s = seed;
  for (let i = a.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, n);
}

/** The schema files, sorted by name: { name, path }. */
export function maskbenchEntries() {
  if (!existsSync(MASKBENCH)) return [];
  return readdirSync(MASKBENCH)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: basename(f, ".json"), path: join(MASKBENCH, f) }));
}

/** A schema file's schema and its first valid instance as text, or null when it has none. */
export function firstValidInstance(path) {
  const doc = JSON.parse(readFileSync(path, "utf8"));
  const t = (doc.tests ?? []).find((x) => x.valid);
  return t ? { schema: doc.schema, text: pyJson(t.data) } : null;
}
