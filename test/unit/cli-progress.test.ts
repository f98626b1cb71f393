// The CLI's progress display: a plain line each time a quarter is crossed on a pipe (with the byte detail a
// download adds), a redrawn bar on a terminal that always shows 100% and is erased at the end.
import { describe, expect, it } from "vitest";
import { createProgressReporter, formatBytes } from "../../src/cli/progress.js";

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, s: { isTTY, write: (t: string) => writes.push(t) } };
}

describe("progress", () => {
  it("on a pipe: a line (the value reached) each time a quarter is crossed, with the detail", () => {
    const { writes, s } = stream(false);
    const p = createProgressReporter(s, "pulling x");
    for (const [f, d] of [
      [0, "0 B"],
      [0.1, "1 B"],
      [0.3, "3 B"],
      [0.6, "6 B"],
      [0.61, "6 B"],
      [1, "10 B"],
    ] as const)
      p.update(f, d);
    p.done();
    expect(writes).toEqual([
      "pulling x: 0% 0 B\n",
      "pulling x: 30% 3 B\n",
      "pulling x: 60% 6 B\n",
      "pulling x: 100% 10 B\n",
    ]);
  });

  it("on a terminal: the bar is redrawn on one line, ends at 100%, and is erased", () => {
    const { writes, s } = stream(true);
    const p = createProgressReporter(s, "loading");
    p.update(0.5);
    p.update(1, "2 MiB");
    p.update(1, "2 MiB");
    p.done();
    expect(writes[0]).toBe(`\rloading [${"#".repeat(15)}${" ".repeat(15)}]  50%\x1b[K`);
    // The final state is drawn once, however fast it came.
    expect(writes.filter((w) => w.includes("100% 2 MiB"))).toEqual([`\rloading [${"#".repeat(30)}] 100% 2 MiB\x1b[K`]);
    expect(writes.at(-1)).toBe("\r\x1b[2K");
    expect(writes.join("")).not.toContain("\n");
  });

  it.each([
    [0, "0 B"],
    [1023, "1023 B"],
    [1536, "1.50 KiB"],
    [3.4 * 1024 ** 2, "3.40 MiB"],
    [12.25 * 1024 ** 3, "12.3 GiB"],
  ])("formatBytes(%d) is %s", (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});
