import type { TemplateCaps } from "./types.js";

/**
 * Renders one probe context. `ok` is false when the template raised; `used(value)` tells whether
 * the template read that exact input value (identity of the object/string passed in the context).
 */
export type ProbeRunner = (context: Record<string, unknown>) => {
  ok: boolean;
  output: string;
  used: (value: unknown, op?: string) => boolean;
  /** Whether the template read `obj[key]` (directly, or by dumping/iterating the whole object). */
  usedMember: (obj: object, key: string) => boolean;
  /** Whether the template looked up this context variable. */
  readVar: (name: string) => boolean;
};

const TOOL = {
  type: "function",
  function: {
    name: "tool1",
    description: "Tool description",
    parameters: {
      type: "object",
      properties: { arg: { type: "string", description: "Arg description" } },
      required: ["arg"],
    },
  },
};

function probeContext(messages: unknown[], tools: unknown[] | null, extra: Record<string, unknown> = {}) {
  return { messages, tools, bos_token: "", eos_token: "", add_generation_prompt: true, ...extra };
}

function toolConversation(args: unknown[], contentMarker = "") {
  return [
    { role: "user", content: "User message" },
    {
      role: "assistant",
      content: contentMarker,
      tool_calls: args.map((a, i) => ({
        id: `call0000${i + 1}`,
        type: "function",
        function: { name: "tool1", arguments: a },
      })),
    },
    { role: "tool", content: "Tool response", tool_call_id: "call00001" },
    { role: "assistant", content: "The tool response was 'tool response'" },
    { role: "user", content: "User message" },
  ];
}

/**
 * Detects what a template can do by rendering probe conversations and watching which inputs it
 * reads, following llama.cpp's capability probes (same conversations, same verdict rules).
 *
 * @example
 * const caps = detectCaps(runner); // runner renders with usage tracking on
 */
export function detectCaps(run: ProbeRunner): TemplateCaps {
  const caps: TemplateCaps = {
    supportsTools: true,
    supportsToolCalls: true,
    supportsParallelToolCalls: true,
    supportsSystemRole: true,
    supportsStringContent: true,
    supportsTypedContent: false,
    requiresTypedContent: false,
    supportsObjectArguments: false,
    requiresObjectArguments: false,
    supportsPreserveReasoning: false,
    supportsReasoningEffort: false,
    supportsEnableThinking: false,
  };

  // Content shape: string vs [{type:"text"}].
  const marker = "STRING_MARKER";
  const stringMsg = { role: "user", content: marker };
  const r1 = run(probeContext([stringMsg], []));
  const checksForString = r1.used(stringMsg.content, "test_is_string");
  const usedAsArray = r1.used(stringMsg.content, "array_access") || r1.used(stringMsg.content, "selectattr");
  if (usedAsArray) caps.supportsTypedContent = true;
  if (!r1.ok) caps.supportsStringContent = false;
  else if (usedAsArray && !r1.output.includes(marker)) caps.supportsStringContent = false;
  if (checksForString) {
    const typedMsg = { role: "user", content: [] as unknown[] };
    const r2 = run(probeContext([typedMsg], []));
    const arr = r2.used(typedMsg.content, "array_access") || r2.used(typedMsg.content, "selectattr");
    if (arr && r2.ok) caps.supportsTypedContent = true;
  }
  if (!caps.supportsStringContent) {
    // Parts only: confirm parts with text render at all.
    const typedMsg = { role: "user", content: [{ type: "text", text: "TYPED_MARKER" }] };
    const r = run(probeContext([typedMsg], []));
    if (r.ok && r.output.includes("TYPED_MARKER")) caps.supportsTypedContent = true;
  }
  caps.requiresTypedContent = !caps.supportsStringContent && caps.supportsTypedContent;

  // System role: the system content must be read.
  const sys = { role: "system", content: "SYSTEM_MARKER" };
  const rs = run(probeContext([sys, { role: "user", content: "User message" }], []));
  if (!rs.used(sys.content)) caps.supportsSystemRole = false;

  // Tools + a single call with object arguments.
  const objArgs = { arg: "ARG_VALUE_MARKER" };
  const tools1 = [structuredClone(TOOL)];
  const msgs1 = toolConversation([objArgs]);
  const ro = run(probeContext(msgs1, tools1));
  let objectArgsOk = false;
  if (ro.ok) {
    if (!ro.usedMember(tools1[0]!.function, "name")) caps.supportsTools = false;
    const calls = (msgs1[1] as { tool_calls: unknown[] }).tool_calls;
    if (!ro.used(calls)) {
      caps.supportsToolCalls = false;
    } else if (ro.used(objArgs.arg)) {
      caps.supportsObjectArguments = true;
      objectArgsOk = true;
    }
  }
  if (!caps.supportsObjectArguments) {
    const tools2 = [structuredClone(TOOL)];
    const msgs2 = toolConversation(['{"arg": "value"}']);
    const rstr = run(probeContext(msgs2, tools2));
    if (!rstr.ok) {
      caps.supportsToolCalls = false;
      caps.supportsTools = false;
    } else {
      caps.supportsTools = rstr.usedMember(tools2[0]!.function, "name");
      const calls = (msgs2[1] as { tool_calls: unknown[] }).tool_calls;
      caps.supportsToolCalls = rstr.used(calls);
    }
  } else {
    // Object arguments are read; string arguments may still be accepted.
    const msgs2 = toolConversation(['{"arg": "value"}']);
    const rstr = run(probeContext(msgs2, [structuredClone(TOOL)]));
    caps.requiresObjectArguments = objectArgsOk && !rstr.ok;
  }

  // Parallel calls: the second call's function must be read.
  const args = caps.supportsObjectArguments ? { arg: "value" } : '{"arg": "value"}';
  const msgsP = toolConversation([args, args]);
  const rp = run(probeContext(msgsP, [structuredClone(TOOL)]));
  const second = (msgsP[1] as { tool_calls: { function: unknown }[] }).tool_calls[1]!.function;
  if (!rp.ok || !rp.used(second)) caps.supportsParallelToolCalls = false;
  if (!caps.supportsToolCalls) caps.supportsParallelToolCalls = false;

  // Reasoning kept in earlier turns.
  const placeholder = "<REASONING_CONTENT_PLACEHOLDER>";
  const rr = run(
    probeContext(
      [
        { role: "user", content: "User message" },
        { role: "assistant", content: "Assistant message", reasoning_content: placeholder },
        { role: "user", content: "User message" },
        { role: "assistant", content: "Assistant message", reasoning_content: "Reasoning content" },
        { role: "user", content: "User message" },
      ],
      [],
      {
        enable_thinking: true,
        preserve_thinking: true,
        clear_thinking: false,
        truncate_history_thinking: false,
        drop_thinking: false,
      },
    ),
  );
  caps.supportsPreserveReasoning = rr.output.includes(placeholder);

  // Reasoning effort and enable_thinking are read.
  const flags = { enable_thinking: true, reasoning_effort: "low", reasoning_strength: "low" };
  const re = run(probeContext([{ role: "user", content: "User message" }], [], flags));
  caps.supportsReasoningEffort = re.readVar("reasoning_effort") || re.readVar("reasoning_strength");
  caps.supportsEnableThinking = re.readVar("enable_thinking");
  return caps;
}
