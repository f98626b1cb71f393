// A format's tag namespace (src/chat/tag-namespace.ts): found only where the section's tag and the call's share a
// delimited word, and left out of the inner tags alone.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { tagNamespace, withoutInnerNamespace } from "../../src/chat/tag-namespace.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

function toolsOf(template: string) {
  const source = readFileSync(join(TEMPLATES_DIR, template), "utf8");
  return analyzeChatTemplate(source, { template: new ChatTemplate(source, { compat: "auto" }) }).tools;
}

describe("tag namespaces", () => {
  it.each([
    ["deepseek-ai-DeepSeek-V4.jinja", "｜DSML｜"],
    ["deepseek-ai-DeepSeek-V3.2.jinja", "｜DSML｜"],
    // `<｜tool▁calls▁begin｜>` and `<｜tool▁sep｜>` share `｜tool▁`: a word before a separator, no namespace.
    ["deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja", ""],
    ["deepseek-ai-DeepSeek-V3.1.jinja", ""],
    ["Qwen3-Coder.jinja", ""],
    ["MiniMax-M2.jinja", ""],
    ["moonshotai-Kimi-K2.jinja", ""],
    ["GLM-4.7-Flash.jinja", ""],
  ])("%s: %j", (template, namespace) => {
    const tools = toolsOf(template);
    expect(tagNamespace(tools)).toBe(namespace);
    expect(withoutInnerNamespace(tools) === null).toBe(namespace === "");
  });

  it("an XML namespace (`ns:`) is one; the section's own tags keep it, every inner tag loses it", () => {
    const t = toolsOf("deepseek-ai-DeepSeek-V4.jinja");
    const ns = (text: string) => text.replaceAll("｜DSML｜", "ns:");
    const xml = {
      ...t,
      format: { ...t.format, sectionStart: ns(t.format.sectionStart), sectionEnd: ns(t.format.sectionEnd) },
      function: { ...t.function, namePrefix: ns(t.function.namePrefix), close: ns(t.function.close) },
      arguments: {
        ...t.arguments,
        namePrefix: ns(t.arguments.namePrefix),
        valueSuffix: ns(t.arguments.valueSuffix),
      },
    };
    expect(tagNamespace(xml)).toBe("ns:");
    const bare = withoutInnerNamespace(xml)!;
    expect(bare.format).toEqual(xml.format);
    expect([bare.function.namePrefix, bare.function.close]).toEqual(['<invoke name="', "</invoke>\n"]);
    expect([bare.arguments.namePrefix, bare.arguments.valueSuffix]).toEqual(['<parameter name="', "</parameter>\n"]);
  });
});
