// Kimi K2's ids in history (functions.NAME:INDEX, counted over the conversation): templates of
// the family that write the caller's id where the name goes then render the name.
import { describe, expect, it } from "vitest";
import { kimiCallIds } from "../../src/chat/dedicated/kimi-call-ids.js";
import type { ChatMessage } from "../../src/types.js";

const call = (id: string, name: string) => ({ id, type: "function" as const, function: { name, arguments: "{}" } });

describe("kimiCallIds", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: "", tool_calls: [call("a1", "get_weather"), call("a2", "record")] },
    { role: "tool", tool_call_id: "a2", content: "ok" },
    { role: "tool", tool_call_id: "a1", content: "sun" },
    { role: "assistant", content: "", tool_calls: [call("functions.get_weather:7", "get_weather")] },
    { role: "tool", tool_call_id: "unknown", content: "?" },
  ];
  const out = kimiCallIds(history);

  it.each([
    { at: 1, ids: ["functions.get_weather:0", "functions.record:1"] },
    { at: 4, ids: ["functions.get_weather:7"] },
  ])("calls of message $at get Kimi's ids (ids already in that form stay)", ({ at, ids }) => {
    expect((out[at] as { tool_calls: { id: string }[] }).tool_calls.map((c) => c.id)).toEqual(ids);
  });

  it.each([
    { at: 2, id: "functions.record:1" },
    { at: 3, id: "functions.get_weather:0" },
    { at: 5, id: "unknown" },
  ])("tool result $at points at the renamed call", ({ at, id }) => {
    expect((out[at] as { tool_call_id: string }).tool_call_id).toBe(id);
  });

  it("leaves the input alone", () => {
    expect((history[1] as { tool_calls: { id: string }[] }).tool_calls[0]!.id).toBe("a1");
  });
});
