// One error base class and one table of codes, shared by the addon and TypeScript.
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TemplateAnalysisError } from "../../src/analysis/index.js";
import { ERROR_CODES, ToolwrightError } from "../../src/errors.js";
import { jsonSchemaToGbnf, parseGbnf } from "../../src/grammar/index.js";
import { readGguf } from "../../src/runtime/gguf/index.js";
import { AbortError, ModelLoadError } from "../../src/runtime/index.js";
import { ChatTemplate } from "../../src/template/index.js";

const ROOT = join(import.meta.dirname, "../..");

async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

describe("error codes", () => {
  it("src/error-codes.ts is generated from native/error_codes.def", () => {
    expect(() => execFileSync(process.execPath, [join(ROOT, "scripts/gen-error-codes.mjs"), "--check"], { stdio: "pipe" })).not.toThrow();
  });

  it("no code is written as a literal outside the table", () => {
    const literal = /"(TOOLWRIGHT_(?!DEBUG|GRAMMAR_|ADDON|VARIANT|CUDA|METAL|FORCE_BUILD|HAS_GRAMMAR_ENGINE|BUILD_)[A-Z_]+|ABORT_ERR)"/;
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|cc|h)$/.test(e.name) && !/error[-_]codes/.test(e.name)) {
          readFileSync(p, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (literal.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${p.slice(ROOT.length + 1)}:${i + 1}`);
            });
        }
      }
    };
    walk(join(ROOT, "src"));
    walk(join(ROOT, "native"));
    // The TypeScript side may compare against codes (typed by the union); only the addon must use the constants.
    expect(offenders.filter((o) => o.startsWith("native/"))).toEqual([]);
  });

  const CASES: { label: string; make: () => unknown; code: string }[] = [
    { label: "AbortError", make: () => new AbortError(), code: "ABORT_ERR" },
    { label: "ModelLoadError keeps a known code", make: () => new ModelLoadError("x", "ENOENT", "m.gguf"), code: "ENOENT" },
    { label: "template syntax", make: () => thrown(() => new ChatTemplate("{{ x|nosuch }}")), code: "TOOLWRIGHT_TEMPLATE_SYNTAX" },
    { label: "template runtime", make: () => thrown(() => new ChatTemplate("{{ 'a' + 1 }}").renderRaw({})), code: "TOOLWRIGHT_TEMPLATE_RUNTIME" },
    { label: "template raise_exception", make: () => thrown(() => new ChatTemplate("{{ raise_exception('no') }}").renderRaw({})), code: "TOOLWRIGHT_TEMPLATE_RAISED" },
    { label: "schema", make: () => thrown(() => jsonSchemaToGbnf({ $ref: "#/nope" })), code: "TOOLWRIGHT_INVALID_SCHEMA" },
    { label: "GBNF", make: () => thrown(() => parseGbnf('root ::= "a')), code: "TOOLWRIGHT_GBNF_SYNTAX" },
    { label: "template analysis", make: () => new TemplateAnalysisError("x"), code: "TOOLWRIGHT_TEMPLATE_ANALYSIS" },
    { label: "GGUF reader", make: () => thrown(() => readGguf(join(ROOT, "no-such-file.gguf"))), code: "NOT_FOUND" },
  ];
  it.each(CASES)("$label: a ToolwrightError with a code of the table", async ({ make, code }) => {
    const e = await make();
    expect(e).toBeInstanceOf(ToolwrightError);
    expect((e as ToolwrightError).code).toBe(code);
    expect(Object.hasOwn(ERROR_CODES, code)).toBe(true);
  });
});
