/**
 * Kimi K2's call ids: `functions.NAME:INDEX`, INDEX counting the calls of the conversation.
 * Kimi's templates either format them from the name themselves or write the caller's id where
 * the name goes (Kimi K2.5 as xinference ships it), trusting the caller to use Kimi's form: the
 * model names the function inside the id. History and the analysis probes for the kimi-k2
 * family get ids in that form, so the name is rendered either way.
 *
 * @example
 * kimiCallIds([{ role: "assistant", tool_calls: [{ id: "x", function: { name: "f" } }] }]);
 * // tool_calls[0].id === "functions.f:0"
 */

type Loose = Record<string, unknown>;

/** Whether `id` is already in Kimi's form (left as it is). */
const KIMI_ID = /^functions\.[^:]+:\d+$/;

/** The messages with every call id in Kimi's form, and tool results pointing at the new ids. */
export function kimiCallIds<M extends object>(messages: readonly M[]): M[] {
  const renamed = new Map<string, string>();
  let index = 0;
  return messages.map((message) => {
    const m = message as Loose;
    if (Array.isArray(m.tool_calls)) {
      const tool_calls = (m.tool_calls as Loose[]).map((call) => {
        const fn = (call.function ?? {}) as Loose;
        const old = typeof call.id === "string" ? call.id : "";
        const id = KIMI_ID.test(old) ? old : `functions.${String(fn.name)}:${index}`;
        index++;
        if (old !== "") renamed.set(old, id);
        return { ...call, id };
      });
      return { ...m, tool_calls } as M;
    }
    if (m.role === "tool" && typeof m.tool_call_id === "string" && renamed.has(m.tool_call_id)) {
      return { ...m, tool_call_id: renamed.get(m.tool_call_id) } as M;
    }
    return message;
  });
}
