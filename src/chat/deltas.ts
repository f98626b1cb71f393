/**
 * Folding streamed deltas back into a message (what an OpenAI client does with a stream).
 */
import type { AssistantMessage, ToolCall } from "../types.js";
import type { ChatDelta } from "./types.js";

/**
 * The message a sequence of deltas adds up to: texts and argument fragments concatenated, a
 * call's id, type and name taken from its first delta.
 *
 * @example
 * accumulateDeltas([{ content: "Hel" }, { content: "lo" }]); // { role: "assistant", content: "Hello" }
 */
export function accumulateDeltas(deltas: Iterable<ChatDelta>): AssistantMessage {
  let content = "";
  let reasoning = "";
  const calls: ToolCall[] = [];
  for (const d of deltas) {
    if (d.content !== undefined) content += d.content;
    if (d.reasoning_content !== undefined) reasoning += d.reasoning_content;
    for (const tc of d.tool_calls ?? []) {
      let call = calls[tc.index];
      if (!call) {
        call = { id: tc.id ?? "", type: "function", function: { name: tc.function.name ?? "", arguments: "" } };
        calls[tc.index] = call;
      }
      call.function.arguments += tc.function.arguments ?? "";
    }
  }
  const toolCalls = calls.filter((c) => c !== undefined);
  const msg: AssistantMessage = {
    role: "assistant",
    content: content !== "" ? content : toolCalls.length > 0 ? null : "",
  };
  if (reasoning !== "") msg.reasoning_content = reasoning;
  if (toolCalls.length > 0) msg.tool_calls = toolCalls;
  return msg;
}
