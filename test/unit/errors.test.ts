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
import { awaitNative, callNative, fromNativeError } from "../../src/runtime/errors.js";
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
    expect(() =>
      execFileSync(process.execPath, [join(ROOT, "scripts/gen-error-codes.mjs"), "--check"], { stdio: "pipe" }),
    ).not.toThrow();
  });

  it("no code is written as a literal outside the table", () => {
    const notCodes = "DEBUG|GRAMMAR_|ADDON|VARIANT|CUDA|METAL|FORCE_BUILD|HAS_GRAMMAR_ENGINE|BUILD_";
    const literal = new RegExp(`"(TOOLWRIGHT_(?!${notCodes})[A-Z_]+|ABORT_ERR)"`);
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|cc|h)$/.test(e.name) && !/error[-_]codes/.test(e.name)) {
          readFileSync(p, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (literal.test(line) && !/^\s*(\/\/|\*)/.test(line))
                offenders.push(`${p.slice(ROOT.length + 1)}:${i + 1}`);
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
    {
      label: "ModelLoadError keeps a known code",
      make: () => new ModelLoadError("x", "ENOENT", "m.gguf"),
      code: "ENOENT",
    },
    {
      label: "template syntax",
      make: () => thrown(() => new ChatTemplate("{{ x|nosuch }}")),
      code: "TOOLWRIGHT_TEMPLATE_SYNTAX",
    },
    {
      label: "template runtime",
      make: () => thrown(() => new ChatTemplate("{{ 'a' + 1 }}").renderRaw({})),
      code: "TOOLWRIGHT_TEMPLATE_RUNTIME",
    },
    {
      label: "template raise_exception",
      make: () => thrown(() => new ChatTemplate("{{ raise_exception('no') }}").renderRaw({})),
      code: "TOOLWRIGHT_TEMPLATE_RAISED",
    },
    {
      label: "schema",
      make: () => thrown(() => jsonSchemaToGbnf({ $ref: "#/nope" })),
      code: "TOOLWRIGHT_INVALID_SCHEMA",
    },
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

/** An error as the addon makes one: a plain Error with a `code` (and the name AbortError for ABORT_ERR). */
function nativeError(message: string, code: string): Error {
  const e = Object.assign(new Error(message), { code });
  if (code === "ABORT_ERR") e.name = "AbortError";
  return e;
}

describe("the addon's errors at the runtime boundary", () => {
  /** Codes with a class of their own; every other code of the table becomes a ToolwrightError. */
  const CLASS_OF: Record<string, new (...args: never[]) => Error> = { ABORT_ERR: AbortError };
  const CODES = Object.keys(ERROR_CODES).map((code) => ({ code, cls: CLASS_OF[code] ?? ToolwrightError }));

  it.each(CODES)("$code becomes a $cls.name with its code, message and the addon's error as cause", ({ code, cls }) => {
    const original = nativeError(`Context.step: failed with ${code}`, code);
    const mapped = fromNativeError(original) as ToolwrightError;
    expect(mapped).toBeInstanceOf(cls);
    expect(mapped).toBeInstanceOf(ToolwrightError);
    expect(mapped.name).toBe(cls.name);
    expect(mapped.code).toBe(code);
    expect(mapped.message).toBe(original.message);
    expect(mapped.cause).toBe(original);
  });

  const UNCHANGED: { label: string; error: unknown }[] = [
    {
      label: "a native TypeError about an argument",
      error: new TypeError("Context.decode: tokens must be an Int32Array"),
    },
    { label: "an error with a code outside the table", error: nativeError("spawn failed", "ERR_SOMETHING") },
    { label: "a ToolwrightError", error: new ToolwrightError("busy", "TOOLWRIGHT_CONTEXT_BUSY") },
    { label: "a thrown string", error: "not an error" },
  ];
  it.each(UNCHANGED)("$label passes unchanged", ({ error }) => {
    expect(fromNativeError(error)).toBe(error);
  });

  it("callNative and awaitNative map what a call throws or rejects with", async () => {
    const full = nativeError("the context is full", "TOOLWRIGHT_CONTEXT_FULL");
    expect(() =>
      callNative(() => {
        throw full;
      }),
    ).toThrow(expect.objectContaining({ name: "ToolwrightError", code: "TOOLWRIGHT_CONTEXT_FULL", cause: full }));
    expect(callNative(() => 7)).toBe(7);
    const lost = nativeError("the RPC server is gone", "TOOLWRIGHT_RPC_LOST");
    const rejected = await awaitNative(() => Promise.reject(lost)).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(ToolwrightError);
    expect(rejected).toMatchObject({ code: "TOOLWRIGHT_RPC_LOST", message: lost.message, cause: lost });
    const thrownSync = await awaitNative((): Promise<never> => {
      throw lost;
    }).catch((e: unknown) => e);
    expect(thrownSync).toMatchObject({ name: "ToolwrightError", code: "TOOLWRIGHT_RPC_LOST" });
    expect(await awaitNative(() => Promise.resolve(3))).toBe(3);
  });
});
