/**
 * Python Jinja2 semantics that chat templates rely on (printing objects, filters on odd inputs,
 * dict/list/str methods, sandbox refusals, scoping), each checked against Python's own render.
 * Goldens: test/fixtures/template-goldens/_snippets.json from scripts/render-goldens.py.
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ChatTemplate, TemplateError, TemplateRuntimeError, TemplateSyntaxError } from "../../src/template/index.js";

interface Snippet {
  source: string;
  allowMutation?: boolean;
  output?: string;
  error?: { type: string; message: string };
}
const golden = JSON.parse(
  readFileSync(join(import.meta.dirname, "../fixtures/template-goldens/_snippets.json"), "utf8"),
) as {
  now: string;
  context: Record<string, unknown>;
  snippets: Snippet[];
};
const now = () => {
  const [d, t] = golden.now.split("T") as [string, string];
  const [y, mo, da] = d.split("-").map(Number) as [number, number, number];
  const [h, mi, s] = t.split(":").map(Number) as [number, number, number];
  return new Date(y, mo - 1, da, h, mi, s);
};

function outcome(snippet: Snippet): Snippet {
  try {
    const tpl = new ChatTemplate(snippet.source, { now, allowMutation: snippet.allowMutation ?? false });
    return { source: snippet.source, output: tpl.renderRaw(structuredClone(golden.context)) };
  } catch (e) {
    const type =
      e instanceof TemplateError
        ? "TemplateError"
        : e instanceof TemplateRuntimeError
          ? e.pythonType
          : e instanceof TemplateSyntaxError
            ? e.pythonType
            : "JS";
    return { source: snippet.source, error: { type, message: (e as Error).message } };
  }
}

describe("Python Jinja2 semantics", () => {
  test.each(golden.snippets.map((s) => [s.source, s] as const))("%s", (_src, snippet) => {
    const ours = outcome(snippet);
    if (snippet.error) expect(ours.error).toEqual(snippet.error);
    else expect(ours.output).toBe(snippet.output);
  });
});
