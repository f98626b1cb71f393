// The layering of src/: each top-level folder imports only from folders below it, so no import
// cycle crosses a folder and the runtime knows nothing of chat. The layers, top to bottom:
//   cli → server, ai-sdk → openai → session → chat → analysis, peg → template, grammar → runtime → validate
// (src/types.ts, the shared OpenAI shapes, may be imported from anywhere). peg/ reaches grammar/ only through
// its layer index (grammar/internal.ts: the public index plus the builders), so grammar's files can move
// without peg noticing.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");

/** Higher layers may import lower ones, never the other way, nor a peer. */
const LAYER: Record<string, number> = {
  cli: 8,
  server: 7,
  "ai-sdk": 7,
  openai: 6,
  session: 5,
  chat: 4,
  analysis: 3,
  peg: 3,
  template: 2,
  grammar: 2,
  runtime: 1,
  validate: 0,
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The top-level folder of a path inside src/, or null for a file at src/'s root. */
function folderOf(path: string): string | null {
  const parts = relative(SRC, path).split(sep);
  return parts.length > 1 ? parts[0]! : null;
}

interface Edge {
  from: string;
  to: string;
  /** The importing file, relative to src/. */
  file: string;
  /** The imported file, relative to src/ (a `.js` specifier as written). */
  target: string;
}

function crossFolderImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (from === null) continue;
    for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      const target = normalize(join(dirname(file), m[1]!));
      const to = folderOf(target);
      if (to !== null && to !== from)
        edges.push({ from, to, file: relative(SRC, file), target: relative(SRC, target) });
    }
  }
  return edges;
}

describe("public surface", () => {
  const pkg = JSON.parse(readFileSync(join(SRC, "../package.json"), "utf8")) as { exports: Record<string, unknown> };
  const exported = new Set(
    Object.keys(pkg.exports).map((k) => (k === "." ? "toolwright" : `toolwright/${k.slice(2)}`)),
  );

  it("JSDoc examples import only from paths the package exports", () => {
    const wrong: string[] = [];
    let seen = 0;
    for (const file of sourceFiles(SRC)) {
      for (const m of readFileSync(file, "utf8").matchAll(/^\s*\*\s*import\b.*\bfrom\s+"([^"]+)"/gm)) {
        seen++;
        if (!exported.has(m[1]!)) wrong.push(`${relative(SRC, file)}: ${m[1]}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen).toBeGreaterThan(5);
  });

  it("every subpath export points at a module of src/", () => {
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (key === "./package.json") continue;
      const js = (target as { default: string }).default.replace(/^\.\/lib\//, "").replace(/\.js$/, ".ts");
      expect(sourceFiles(SRC).map((f) => relative(SRC, f))).toContain(js);
    }
  });

  it("every export has types and a default condition (import, and require on Node >= 20.19 / 22.12)", () => {
    const conditions = Object.entries(pkg.exports)
      .filter(([key]) => key !== "./package.json")
      .map(([key, target]) => [key, Object.keys(target as object)]);
    expect(conditions).toEqual(conditions.map(([key]) => [key, ["types", "default"]]));
  });
});

describe("layering of src/", () => {
  const edges = crossFolderImports();

  it("every top-level folder has a layer", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !(f in LAYER))).toEqual([]);
  });

  it("imports only point down", () => {
    const upward = edges
      .filter((e) => !(LAYER[e.from]! > LAYER[e.to]!))
      .map((e) => `${e.file} imports ${e.to}/ (${e.from} may not)`);
    expect(upward).toEqual([]);
  });

  it("the runtime imports only the validation kit, which imports nothing", () => {
    expect(edges.filter((e) => e.from === "runtime" && e.to !== "validate")).toEqual([]);
    expect(edges.filter((e) => e.from === "validate")).toEqual([]);
  });

  it("the text layers (template, grammar, analysis, peg) do not need the runtime", () => {
    const text = new Set(["template", "grammar", "analysis", "peg"]);
    expect(edges.filter((e) => text.has(e.from) && e.to === "runtime").map((e) => e.file)).toEqual([]);
  });

  it("peg/ imports grammar/ only through grammar/internal.ts", () => {
    const deep = edges
      .filter((e) => e.from === "peg" && e.to === "grammar" && e.target !== join("grammar", "internal.js"))
      .map((e) => `${e.file} imports ${e.target}`);
    expect(deep).toEqual([]);
  });

  it("finds the imports it checks", () => {
    // A check that found nothing would pass vacuously.
    expect(edges.some((e) => e.from === "session" && e.to === "runtime")).toBe(true);
    expect(edges.some((e) => e.from === "chat" && e.to === "peg")).toBe(true);
    expect(edges.some((e) => e.from === "peg" && e.to === "grammar")).toBe(true);
    expect(edges.some((e) => e.from === "template" && e.to === "validate")).toBe(true);
  });
});

describe("test projects", () => {
  const TEST = join(import.meta.dirname, "..");

  it("unit tests never load the addon (they run without a build)", () => {
    const loads = /\b(loadModel|loadNative|ensureTestModel|runGrammarTool)\b/;
    const offenders = readdirSync(join(TEST, "unit")).filter(
      (f) =>
        f.endsWith(".test.ts") &&
        f !== "architecture.test.ts" &&
        loads.test(readFileSync(join(TEST, "unit", f), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  it("every test file belongs to a project folder", () => {
    for (const project of ["unit", "docs", "native", "e2e", "reliability"])
      expect(
        readdirSync(join(TEST, project)).some((f) => f.endsWith(".test.ts")),
        project,
      ).toBe(true);
    const stray = readdirSync(TEST).filter((f) => f.endsWith(".test.ts"));
    expect(stray).toEqual([]);
  });
});
