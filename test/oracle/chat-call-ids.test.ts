// Call ids: where the format carries one (Kimi K2's numbered name functions.NAME:IDX, Command R7B
// / Cohere's tool_call_id, Mistral's [CALL_ID], a JSON "id" field), the model's own id is kept,
// as llama.cpp's chat-parser cases expect; an id is generated only when the output has none.
// Replayed whole and streamed in chunks.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { caseLabel, loadLlamaCases, paramsOf, randomCuts, replay, type LlamaCase } from "../helpers/llama-cases.js";
import { sharedData } from "../helpers/shared-data.js";

const dir = sharedData("llama-test-chat");
const all: LlamaCase[] = dir === null ? [] : loadLlamaCases(join(dir, "cases.jsonl"));

const withIds = all.filter((c) => c.expect.tool_calls.length > 0 && c.expect.tool_calls.every((t) => t.id !== ""));
const withoutIds = all.filter((c) => c.expect.tool_calls.length > 0 && c.expect.tool_calls.every((t) => t.id === ""));

describe.skipIf(dir === null)("the model's own call id is kept", () => {
  it("there are such cases (Kimi K2, Cohere, Mistral)", () => {
    expect(new Set(withIds.map((c) => c.template.replace(/.*\//, ""))).size).toBeGreaterThanOrEqual(4);
  });
  it.each(withIds.map((c) => ({ label: caseLabel(c), c })))("$label", ({ c }) => {
    const params = paramsOf(c);
    const want = c.expect.tool_calls.map((t) => ({ name: t.name, id: t.id }));
    for (const cuts of [[], randomCuts(c.input.length, c.id)]) {
      const got = replay(c, params, cuts).tool_calls?.map((t) => ({ name: t.function.name, id: t.id }));
      expect(got, cuts.length === 0 ? "whole" : "streamed").toEqual(want);
    }
  });
});

describe.skipIf(dir === null)("an id is generated only where the output has none", () => {
  it.each(withoutIds.map((c) => ({ label: caseLabel(c), c })))("$label", ({ c }) => {
    const calls = replay(c, paramsOf(c)).tool_calls ?? [];
    calls.forEach((t, i) => expect(t.id, `call ${i}`).toBe(`generated-${i}`));
  });
});
