/** StopStringFilter: stop strings over streamed chunks (no native code involved). */
import { describe, expect, test } from "vitest";
import { StopStringFilter } from "../../src/runtime/stop-strings.js";

/** Feeds chunks; returns the emitted text per chunk, whether it stopped, and the final flush. */
function run(stops: string[], chunks: string[]): { emitted: string[]; stopped: boolean; flushed: string } {
  const filter = new StopStringFilter(stops);
  const emitted: string[] = [];
  for (const chunk of chunks) {
    const { text, stopped } = filter.push(chunk);
    emitted.push(text);
    if (stopped) return { emitted, stopped: true, flushed: "" };
  }
  return { emitted, stopped: false, flushed: filter.flush() };
}

describe("StopStringFilter", () => {
  test.each([
    {
      name: "no stops: everything passes",
      stops: [],
      chunks: ["a", "b"],
      emitted: ["a", "b"],
      stopped: false,
      flushed: "",
    },
    {
      name: "stop inside one chunk",
      stops: ["END"],
      chunks: ["abcENDxyz"],
      emitted: ["abc"],
      stopped: true,
      flushed: "",
    },
    {
      name: "stop spanning chunks",
      stops: ["</s>"],
      chunks: ["hi <", "/", "s> more"],
      emitted: ["hi ", "", ""],
      stopped: true,
      flushed: "",
    },
    {
      name: "false start is released",
      stops: ["</s>"],
      chunks: ["a <", "/b", "> c"],
      emitted: ["a ", "</b", "> c"],
      stopped: false,
      flushed: "",
    },
    {
      name: "held prefix flushed at the end",
      stops: ["STOP"],
      chunks: ["abc S", "TO"],
      emitted: ["abc ", ""],
      stopped: false,
      flushed: "STO",
    },
    {
      name: "earliest of several stops wins",
      stops: ["world", "lo w"],
      chunks: ["hello world"],
      emitted: ["hel"],
      stopped: true,
      flushed: "",
    },
    { name: "stop at the very start", stops: ["x"], chunks: ["xyz"], emitted: [""], stopped: true, flushed: "" },
    {
      name: "multi-byte characters",
      stops: ["🎉!"],
      chunks: ["ça 🎉", "!"],
      emitted: ["ça ", ""],
      stopped: true,
      flushed: "",
    },
    {
      name: "overlapping partial matches",
      stops: ["aab"],
      chunks: ["xaa", "a", "b"],
      emitted: ["x", "a", ""],
      stopped: true,
      flushed: "",
    },
    {
      name: "empty stop strings are ignored",
      stops: [""],
      chunks: ["abc"],
      emitted: ["abc"],
      stopped: false,
      flushed: "",
    },
  ])("$name", ({ stops, chunks, emitted, stopped, flushed }) => {
    expect(run(stops, chunks)).toEqual({ emitted, stopped, flushed });
  });

  test("emitted text plus flush always equals the input up to the first stop", () => {
    const text = "The quick brown fox jumps over the lazy dog; the end.";
    const stops = ["lazy", "zzz", "the end"];
    for (let size = 1; size <= 7; size++) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g"))!;
      const { emitted, stopped, flushed } = run(stops, chunks);
      expect(stopped).toBe(true);
      expect(emitted.join("") + flushed).toBe("The quick brown fox jumps over the ");
    }
  });
});
