// The public API is what api-report.txt lists: the report is regenerated here from src/ (the files
// package.json's exports are built from) and must match, so a change of the surface shows in review.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { API_REPORT_FILE, apiReport, formatApiReport } from "../../scripts/api-report.mjs";

const REPO_ROOT = join(import.meta.dirname, "..", "..");

/** Files whose code (JSDoc examples, snippets) imports toolwright as a user would. */
function userFacingFiles(): string[] {
  const files = ["README.md"];
  for (const dir of ["src", "docs", "examples"]) {
    for (const entry of readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(ts|md|mjs)$/.test(entry.name)) {
        files.push(relative(REPO_ROOT, join(entry.parentPath, entry.name)));
      }
    }
  }
  return files;
}

const PACKAGE_IMPORT = /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(toolwright(?:\/[a-z-]+)?)"/g;

describe("public API", () => {
  const rows = apiReport();

  it("is the checked-in api-report.txt (run `npm run api-report` to update it)", () => {
    const checkedIn = readFileSync(API_REPORT_FILE, "utf8");
    const current = formatApiReport(rows);
    if (current !== checkedIn) {
      const was = new Set(checkedIn.split("\n"));
      const now = new Set(current.split("\n"));
      const added = [...now].filter((l) => !was.has(l)).map((l) => `+ ${l}`);
      const removed = [...was].filter((l) => !now.has(l)).map((l) => `- ${l}`);
      expect.fail(
        `The public API differs from api-report.txt; run \`npm run api-report\` to update it ` +
          `if the change is intended:\n${[...removed, ...added].join("\n")}`,
      );
    }
  });

  it("gives each name one meaning across entry points (one Relaxation, one model loader)", () => {
    const declarations = new Map<string, Set<string>>();
    for (const r of rows) declarations.set(r.name, (declarations.get(r.name) ?? new Set()).add(r.declaration));
    const ambiguous = [...declarations].filter(([, d]) => d.size > 1).map(([name, d]) => `${name}: ${[...d]}`);
    expect(ambiguous).toEqual([]);
  });

  it("is what JSDoc examples, docs and examples import from package paths", () => {
    const exported = new Set(rows.map((r) => `${r.entry} ${r.name}`));
    const missing: string[] = [];
    for (const file of userFacingFiles()) {
      for (const [, names, path] of readFileSync(join(REPO_ROOT, file), "utf8").matchAll(PACKAGE_IMPORT)) {
        const entry = path === "toolwright" ? "." : `./${path!.slice("toolwright/".length)}`;
        for (const spec of names!.split(",")) {
          const name = spec
            .replace(/^[\s*]*(type\s+)?/, "")
            .split(/\s+as\s+/)[0]!
            .trim();
          if (name !== "" && !exported.has(`${entry} ${name}`)) missing.push(`${file}: ${name} from "${path}"`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("names every export's kind", () => {
    expect(rows.filter((r) => r.kind === "unknown")).toEqual([]);
    expect(new Set(rows.map((r) => r.entry)).size).toBeGreaterThan(1);
  });
});
