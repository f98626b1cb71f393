/**
 * The probe conversation pieces every phase renders. Needles are distinctive ASCII strings
 * that cannot occur in a template by accident, so finding them in a rendering locates the
 * field that carried them. Values and key order match llama.cpp's analyser so both see the
 * same renderings.
 *
 * @example
 * const msgs = [USER_TURN, assistantWithCalls([toolCall(FUN_FIRST, { [ARG_FIRST]: "XXXX" })])];
 */

export const FUN_FIRST = "FFF_FIRST_FUN_F";
export const FUN_SECOND = "SSS_SECOND_FUN_S";
export const ARG_FIRST = "AA_ARG_FST_AA";
export const ARG_SECOND = "BB_ARG_SND_BB";
export const USER_MSG = "U_USER_MSG Hello END_U";
export const USER_MSG_TWO = "V_USER_MSG Hello END_V";
export const ASSISTANT_MSG = "A_ASST_MSG I can help END_A";
export const THINKING_CONTENT = "REASON_PART I am thinking END_R";
export const CALL_ID_001 = "call00001";
export const CALL_ID_002 = "call00002";
export const CALL_ID_999 = "call99999";

/** A probe message: loose on purpose (content may be null, arguments are objects). */
export type ProbeMessage = Record<string, unknown>;

function functionTool(name: string, description: string): Record<string, unknown> {
  return {
    type: "function",
    function: {
      name,
      description,
      parameters: {
        type: "object",
        properties: {
          [ARG_FIRST]: { type: "string", description: "First argument" },
          [ARG_SECOND]: { type: "string", description: "Second argument" },
        },
        required: [],
      },
    },
  };
}

/** The two tools offered in every tool probe. */
export const PROBE_TOOLS: readonly Record<string, unknown>[] = [
  functionTool(FUN_FIRST, "Test function foo"),
  functionTool(FUN_SECOND, "Test function bar"),
];

export const USER_TURN: ProbeMessage = { role: "user", content: USER_MSG };
export const USER_TURN_TWO: ProbeMessage = { role: "user", content: USER_MSG_TWO };
export const ASSISTANT_TURN: ProbeMessage = { role: "assistant", content: ASSISTANT_MSG };

/** An OpenAI-shaped call whose `arguments` is an object (as templates usually expect). */
export function toolCall(name: string, args: Record<string, unknown>, id: string = CALL_ID_001): ProbeMessage {
  return { id, type: "function", function: { name, arguments: args } };
}

/** Both arguments, the call most probes use. */
export const FIRST_CALL = toolCall(FUN_FIRST, { [ARG_FIRST]: "XXXX", [ARG_SECOND]: "YYYY" });
export const SECOND_CALL = toolCall(FUN_SECOND, { [ARG_FIRST]: "XXXX", [ARG_SECOND]: "YYYY" }, CALL_ID_002);
export const FIRST_CALL_OTHER_ID = toolCall(FUN_FIRST, { [ARG_FIRST]: "XXXX", [ARG_SECOND]: "YYYY" }, CALL_ID_999);
export const FIRST_CALL_NO_ARGS = toolCall(FUN_FIRST, {});
export const FIRST_CALL_ONE_ARG = toolCall(FUN_FIRST, { [ARG_FIRST]: "XXXX" });
export const FIRST_CALL_ONE_ARG_OTHER_VALUE = toolCall(FUN_FIRST, { [ARG_FIRST]: "YYYY" });
export const FIRST_CALL_OTHER_ARG = toolCall(FUN_FIRST, { [ARG_SECOND]: "YYYY" });

/** An assistant turn that only calls tools (empty content, as many templates require). */
export function assistantWithCalls(calls: ProbeMessage[]): ProbeMessage {
  return { role: "assistant", content: "", tool_calls: calls };
}
