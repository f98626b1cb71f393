// An end-of-sequence text the model wrote as text is dropped only where it ends the output.
import { describe, expect, it } from "vitest";
import { TrailingEndFilter } from "../../src/chat/trailing-end.js";

const ENDS = ["</s>", "<|endoftext|>"];

const CASES: { output: string; kept: string }[] = [
  { output: "Done.</s>", kept: "Done." },
  { output: "Done. </s>\n", kept: "Done." },
  { output: "Done.<|endoftext|>", kept: "Done." },
  { output: "Use <s>x</s> in HTML.", kept: "Use <s>x</s> in HTML." },
  { output: "Ends with a start </s", kept: "Ends with a start </s" },
  { output: "</s> then more", kept: "</s> then more" },
  { output: "Two </s></s>", kept: "Two </s>" },
  { output: "", kept: "" },
];

function run(output: string, size: number): string {
  const f = new TrailingEndFilter(ENDS);
  let out = "";
  for (let i = 0; i < output.length; i += size) out += f.push(output.slice(i, i + size));
  return out + f.finish();
}

describe("TrailingEndFilter", () => {
  it.each(CASES)("$output", ({ output, kept }) => {
    for (let size = 1; size <= Math.max(1, output.length); size++) {
      expect(run(output, size).trimEnd(), `chunks of ${size}`).toBe(kept);
    }
  });

  it("with no end texts passes everything through at once", () => {
    const f = new TrailingEndFilter([]);
    expect(f.push("a</s>")).toBe("a</s>");
    expect(f.finish()).toBe("");
  });
});
