// The API reference (`npm run docs`) builds from typedoc.json with no warning, and has a page for each
// entry point of package.json "exports": built as `npm run docs` builds it, into a temporary folder. Its own
// vitest project ("docs"): typedoc reads all of src/ and writes ~300 pages, too slow for "unit".
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import {
  Application,
  LogLevel,
  type OptionsReader,
  PageEvent,
  type ProjectReflection,
  TSConfigReader,
  type TypeDocOptions,
} from "typedoc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiEntryPoints } from "../../scripts/api-report.mjs";

const REPO_ROOT = join(import.meta.dirname, "..", "..");
const TYPEDOC_JSON = join(REPO_ROOT, "typedoc.json");

/** The module name each entry point's file declares with `@module`: the import path an app writes. */
function importPath(entry: string): string {
  return entry === "." ? "toolwright" : `toolwright/${entry.slice(2)}`;
}

interface DocsBuild {
  app: Application;
  project: ProjectReflection | undefined;
  /** Warnings and errors, as typedoc logged them (printed or not). */
  problems: string[];
  /** The file written for each reflection that has a page of its own. */
  pages: Map<object, string>;
}

/**
 * Builds a reference into `out` as the typedoc CLI does: the options the readers find (by default
 * ./typedoc.json's, package.json's and the tsconfig's), `options` on top; prints warnings and errors only
 * unless `options` sets `logLevel`.
 */
async function buildDocs(out: string, options: Partial<TypeDocOptions>, readers?: OptionsReader[]): Promise<DocsBuild> {
  const app = await Application.bootstrapWithPlugins({ logLevel: "Warn", ...options, out }, readers);
  const problems: string[] = [];
  const log = app.logger.log.bind(app.logger);
  app.logger.log = (message, level) => {
    if (level >= LogLevel.Warn) problems.push(message);
    log(message, level);
  };
  const pages = new Map<object, string>();
  app.renderer.on(PageEvent.END, (page) => pages.set(page.model, page.filename));
  const project = await app.convert();
  if (project) {
    app.validate(project);
    await app.generateDocs(project, out);
  }
  return { app, project, problems, pages };
}

describe("API reference (typedoc.json)", () => {
  const out = mkdtempSync(join(tmpdir(), "toolwright-api-docs-"));
  let docs: DocsBuild;
  beforeAll(async () => {
    docs = await buildDocs(out, { options: TYPEDOC_JSON });
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("documents exactly the src/ files package.json exports", () => {
    const listed = docs.app.options.getValue("entryPoints").map((path) => relative(REPO_ROOT, path));
    const exported = apiEntryPoints(REPO_ROOT).map((e) => relative(REPO_ROOT, e.source));
    expect(listed.sort()).toEqual(exported.sort());
  });

  it("builds with no warning or error", () => {
    expect(docs.problems).toEqual([]);
    expect(docs.app.logger.hasWarnings() || docs.app.logger.hasErrors()).toBe(false);
    expect(docs.project).toBeDefined();
  });

  it("has a page for each entry point, named by its import path", () => {
    const modules = new Map(docs.project?.children?.map((m) => [m.name, m]));
    for (const { entry } of apiEntryPoints(REPO_ROOT)) {
      const module = modules.get(importPath(entry));
      expect(module, `no module "${importPath(entry)}" (its file's @module tag)`).toBeDefined();
      const page = docs.pages.get(module!);
      expect(page && existsSync(page), `no page for ${importPath(entry)}`).toBe(true);
    }
    expect([...modules.keys()].sort()).toEqual(
      apiEntryPoints(REPO_ROOT)
        .map((e) => importPath(e.entry))
        .sort(),
    );
  });
});

describe("a build with problems", () => {
  // The check above would pass vacuously if typedoc's warnings bypassed the collection.
  it("reports an unexported type and a broken link", async () => {
    const fixture = join(REPO_ROOT, "test", "fixtures", "api-docs");
    const out = mkdtempSync(join(tmpdir(), "toolwright-api-docs-"));
    try {
      const options = { entryPoints: [join(fixture, "broken.ts")], tsconfig: join(fixture, "tsconfig.json") };
      const { problems } = await buildDocs(
        out,
        { ...options, readme: "none", disableSources: true, logLevel: "Error" },
        [new TSConfigReader()],
      );
      expect(problems.some((p) => p.includes("Hidden") && p.includes("not included"))).toBe(true);
      expect(problems.some((p) => p.includes("Nowhere"))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
