import { test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { analyzeTemplate } from "/work/main/src/analysis/index.js";
import { ChatTemplate } from "/work/main/src/template/index.js";
test("probe", () => {
  for (const dir of ["/work/main/deps/llama.cpp/models/templates/", "/work/shared/templates-dev/"]) for (const n of readdirSync(dir).filter((f) => f.endsWith(".jinja"))) {
    const src = readFileSync(dir + n, "utf8");
    try { const a = analyzeTemplate(src, { template: new ChatTemplate(src, { compat: "auto" }) });
    const inFmt = a.preservedTokens.some((t) => a.assistantEnd !== "" && (t.includes(a.assistantEnd) || a.assistantEnd.includes(t)));
    console.log(n.padEnd(60), JSON.stringify(a.assistantEnd), inFmt ? "IN-FORMAT" : ""); } catch (e) { console.log(n, "ERR", (e as Error).message); }
  }
});
