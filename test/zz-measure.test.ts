import { test } from "vitest";
import { caseLabel, judge, loadLlamaCases, paramsOf, randomCuts, replay } from "/work/main/test/helpers/llama-cases.js";
test("measure", async () => {
  const cases = loadLlamaCases("/work/shared/llama-test-chat/cases.jsonl");
  const counts: Record<string, number> = {};
  const lines: string[] = [];
  for (const c of cases) {
    let kind: string;
    try {
      const p = paramsOf(c);
      const v = judge(c, replay(c, p));
      kind = v.kind;
      const vs = judge(c, replay(c, p, randomCuts(c.input.length, c.id + 1)));
      if (vs.kind !== v.kind) { kind += "/stream-" + vs.kind; lines.push(`${caseLabel(c)} [stream ${vs.kind}] ${"problems" in vs ? vs.problems.join(" | ") : ""}`); }
      if (v.kind !== "exact") lines.push(`${caseLabel(c)} [${v.kind}] fmt=${c.reasoning_format} cont=${c.continue_final_message} partial=${c.is_partial}\n   in=${JSON.stringify(c.input).slice(0, 300)}\n   ${"problems" in v ? v.problems.join("\n   ") : ""}`);
    } catch (e) {
      kind = "throws";
      lines.push(`${caseLabel(c)} [throws] ${(e as Error).message.slice(0, 200)}`);
    }
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  (await import("node:fs")).writeFileSync("/tmp/llama-cases.txt", JSON.stringify(counts) + "\n" + lines.join("\n"));
  console.log(counts);
});
