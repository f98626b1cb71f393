// Every js / ts code block of the README, type-checked as a user's strict TypeScript would, in
// the type-level test project (test/types/, whose declarations the blocks see; a block fenced
// ```js no-typecheck is skipped). A README change is checked. `npm run typecheck` checks the
// project's own files and their `@ts-expect-error` assertions (checking them here too doubled
// this file's time).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const PROJECT = join(ROOT, "test/types/tsconfig.json");

/** The README's checked code blocks, with the line each starts on. */
function readmeBlocks(markdown: string): { code: string; line: number }[] {
  const out: { code: string; line: number }[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^```(\S*)(.*)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith("```"));
    if (end < 0) break;
    if (["js", "ts", "javascript", "typescript", "mjs"].includes(m[1]!) && !/\bno-typecheck\b/.test(m[2]!)) {
      out.push({ code: lines.slice(i + 1, end).join("\n"), line: i + 2 });
    }
    i = end;
  }
  return out;
}

/** Files read from disk, parsed once for every check of this file (the lib and src/ declarations). */
const parsedFiles = new Map<string, ts.SourceFile | undefined>();

/**
 * Diagnostics, as "file:line: message", of `extra` virtual files (path → text) and, unless
 * `onlyExtra`, of the project's own files.
 */
function check(extra: Map<string, string>, onlyExtra = false): string[] {
  const config = ts.readConfigFile(PROJECT, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(PROJECT));
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, onError, create) => {
    const text = extra.get(name);
    if (text !== undefined) return ts.createSourceFile(name, text, lang, true);
    if (!parsedFiles.has(name)) parsedFiles.set(name, getSourceFile(name, lang, onError, create));
    return parsedFiles.get(name);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => extra.has(name) || fileExists(name);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => extra.get(name) ?? readFile(name);
  const roots = new Set([...parsed.fileNames, ...extra.keys()]);
  const mine = onlyExtra ? new Set(extra.keys()) : roots;
  const program = ts.createProgram({ rootNames: [...roots], options: parsed.options, host });
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program
      .getSourceFiles()
      .filter((f) => mine.has(f.fileName))
      .flatMap((f) => [...program.getSyntacticDiagnostics(f), ...program.getSemanticDiagnostics(f)]),
  ];
  return diagnostics.map((d) => {
    const where =
      d.file && d.start !== undefined
        ? `${d.file.fileName.replace(`${ROOT}/`, "")}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}`
        : "(options)";
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
}

/** The README blocks as virtual module files beside the project's own. */
function virtualFiles(blocks: { code: string; line: number }[]): Map<string, string> {
  // `export {}` makes each block a module (top-level await; its names shadow readme-globals.d.ts).
  return new Map(blocks.map((b) => [join(ROOT, `test/types/readme-line-${b.line}.ts`), `export {};\n${b.code}\n`]));
}

describe("the type-level test project", () => {
  const blocks = readmeBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));

  it("finds the README's code blocks", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(blocks.some((b) => b.code.includes("defineTool"))).toBe(true);
  });

  it("type-checks every README code block under strict TypeScript", () => {
    expect(check(virtualFiles(blocks), true)).toEqual([]);
  });

  it("fails on a README tool whose execute reads an argument the schema does not declare", () => {
    const weather = blocks.find((b) => b.code.includes("execute: async ({ city })"));
    expect(weather).toBeDefined();
    const broken = {
      ...weather!,
      code: weather!.code.replace("execute: async ({ city })", "execute: async ({ town })"),
    };
    // Only the broken block's diagnostics: the test above checks the rest.
    const errors = check(virtualFiles([broken]), true);
    expect(errors.some((e) => /readme-line-\d+\.ts:\d+: Property 'town' does not exist/.test(e))).toBe(true);
  });
});
