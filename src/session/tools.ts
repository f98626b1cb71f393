/**
 * The tool runner's one job per turn: execute the calls the model made and turn each result (or
 * error) into a tool message the template can render.
 */
import type { ToolCall, ToolMessage } from "../types.js";
import type { ChatTool } from "./types.js";

function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Whether every call names a tool the runner can execute. */
export function canExecuteAll(calls: readonly ToolCall[], tools: readonly ChatTool[]): boolean {
  return calls.length > 0 && calls.every((c) => tools.some((t) => t.function.name === c.function.name && t.execute !== undefined));
}

/**
 * Runs the calls concurrently. Bad JSON arguments and thrown errors are returned to the model as
 * the tool result ("Error: ..."), so it can correct itself.
 *
 * @example
 * const results = await executeToolCalls(message.tool_calls, tools, signal);
 * // [{ role: "tool", tool_call_id: "abc", name: "get_weather", content: "{\"temp\":21}" }]
 */
export async function executeToolCalls(calls: readonly ToolCall[], tools: readonly ChatTool[], signal: AbortSignal | undefined): Promise<ToolMessage[]> {
  return Promise.all(
    calls.map(async (call): Promise<ToolMessage> => {
      const name = call.function.name;
      const tool = tools.find((t) => t.function.name === name);
      let content: string;
      try {
        if (!tool?.execute) throw new Error(`no tool named ${JSON.stringify(name)}`);
        let args: unknown;
        try {
          args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
        } catch (e) {
          throw new Error(`the arguments are not valid JSON (${(e as Error).message})`);
        }
        content = resultText(await tool.execute(args, { signal, toolCallId: call.id }));
      } catch (e) {
        content = `Error: ${e instanceof Error ? e.message : String(e)}`;
      }
      return { role: "tool", tool_call_id: call.id, name, content };
    }),
  );
}
