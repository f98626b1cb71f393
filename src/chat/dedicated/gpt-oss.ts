/**
 * GPT-OSS (harmony format): the output is a series of messages on channels,
 *   <|channel|>analysis<|message|>REASONING<|end|><|start|>assistant
 *   <|channel|>commentary<|message|>PREAMBLE<|end|><|start|>assistant
 * ending with either the answer or tool calls, one per message (each followed by the next
 * message's header, more reasoning or preamble messages, and the answer after the last):
 *   <|channel|>final<|message|>ANSWER
 *   [<|channel|>commentary] to=functions.NAME[<|channel|>commentary] [<|constrain|>]json<|message|>ARGS<|call|>
 * The prompt ends with "<|start|>assistant", which the parser reads first.
 *
 * Messages to recipients that are not declared tools are handled deliberately (the grammar,
 * lazy or strict, only ever allows the declared functions):
 *  - `to=NAME` without the `functions.` prefix, NAME a declared tool, is read as that call.
 *  - any other recipient (a function the request did not declare, the template's built-in tools
 *    `browser.*`, `python`, `container.*`), and any call when the request uses no tools, is no
 *    call: the message's text is content (nothing the model wrote is lost; llama.cpp drops it).
 */
import type { ChatMessage, JsonSchema } from "../../types.js";
import { PegArena, type PegId } from "../../peg/index.js";
import { toolParameters, jsonAnswerValue } from "../build-helpers.js";
import type { NormalizedRequest } from "../request.js";
import { NODE } from "../tree-names.js";
import { type DedicatedBuild, type DedicatedHandlerDef, dedicatedParser, sourceHas } from "./handler.js";

const START = "<|start|>assistant";
const END = "<|end|>";

/**
 * The grammar of tool_choice "required": analysis messages only when the request thinks (no
 * preamble), then one call whose header after the recipient is the channel and the json
 * constraint as the template writes them, nothing free.
 */
function requiredGrammar(p: PegArena, req: NormalizedRequest, analysis: PegId): PegId {
  const constraint = p.optional(
    p.choice(p.literal(" <|constrain|>json"), p.literal("<|constrain|>json"), p.literal(" json")),
  );
  const calls = req.tools.map((t, i) => {
    const channel = p.seq(p.literal("<|channel|>"), p.choice(p.literal("commentary"), p.literal("analysis")));
    const header = p.seq(
      p.literal(" to=functions."),
      p.capture(NODE.toolName, p.literal(t.function.name)),
      p.optional(channel),
      constraint,
      p.literal("<|message|>"),
    );
    return p.rule(
      `g-tool-${i}`,
      p.tag(
        NODE.tool,
        p.seq(header, p.capture(NODE.toolArgs, p.schema(p.json(), toolParameters(t), { name: `tool-${i}-args` }))),
      ),
    );
  });
  const call = p.rule("g-tool-call", p.tag(NODE.toolSection, p.choice(...calls)));
  const withChannel = p.seq(p.optional(p.literal("<|channel|>commentary")), call);
  const thinking = req.thinking ? p.zeroOrMore(p.seq(analysis, p.literal(START))) : p.eps();
  return p.seq(thinking, withChannel, p.space(), p.end());
}

/**
 * A message to any other recipient (built-in tools, an undeclared function, or any call when no
 * tools are in use): its text is content.
 */
function unsolicited(p: PegArena): PegId {
  const channel = p.optional(p.seq(p.literal("<|channel|>"), p.choice(p.literal("commentary"), p.literal("analysis"))));
  const message = p.seq(
    channel,
    p.literal(" to="),
    p.not(p.literal("assistant")),
    p.until(END, "<|call|>", "<|return|>"),
  );
  return p.seq(
    p.capture(NODE.content, message),
    p.optional(p.choice(p.literal(END), p.literal("<|call|>"), p.literal("<|return|>"))),
  );
}

/** Whether `{}` is a call's whole arguments: the schema requires no argument. */
function takesNoArguments(params: JsonSchema): boolean {
  const required =
    typeof params === "object" && params !== null ? (params as { required?: unknown }).required : undefined;
  return !Array.isArray(required) || required.length === 0;
}

function build(req: NormalizedRequest): DedicatedBuild {
  const p = new PegArena();
  // For the parser: whitespace between the format's tokens (as pipelines that decode them as text write it, also
  // after each special token: `<|channel|> analysis`, `<|start|> assistant`, as tokenizers that prefix a word's
  // space decode it), a message read up to the next message's header where its `<|end|>` is left out, and that
  // header without its `<|start|>assistant` before the next channel.
  const gap = p.lenient(p.space(), p.eps());
  const channel = (...names: string[]): PegId =>
    p.seq(p.literal("<|channel|>"), gap, p.choice(...names.map((name) => p.literal(name))));
  const start = p.seq(p.literal("<|start|>"), gap, p.literal("assistant"));
  const text = (capture: string): PegId =>
    p.capture(
      capture,
      p.lenient(
        p.until(END, "<|start|>", "<|return|>", "<|call|>", "<|channel|>"),
        p.until(END, "<|return|>", "<|call|>"),
      ),
    );
  // For the parser also `<|return|>`, the turn's end, where a message other than the answer is the last, and
  // `<|call|>`, a call's end, where a model ends another message with it.
  const ends = p.choice(p.literal(END), p.literal("<|return|>"), p.literal("<|call|>"));
  const end = p.lenient(p.optional(p.seq(gap, ends)), p.literal(END));
  const next = p.lenient(p.seq(gap, p.choice(start, p.and(p.literal("<|channel|>")))), p.literal(START));
  // Models sometimes put a stray commentary channel (and recipient) before the real one.
  const stray = p.optional(p.seq(channel("commentary"), p.optional(p.literal(" to=assistant"))));
  // For the parser also a header whose `<|message|>` is left out (`<|channel|>analysis I must refuse<|end|>`): the
  // text after the space (not a recipient's ` to=`).
  const unopened = p.seq(p.literal(" "), p.not(p.literal("to=")));
  const opened = p.lenient(p.choice(p.seq(gap, p.literal("<|message|>")), unopened), p.literal("<|message|>"));
  const constraint = p.optional(
    p.seq(p.space(), p.optional(p.seq(p.literal("<|constrain|>"), gap)), p.chars("A-Za-z0-9_\\-", 1)),
  );
  const analysis = p.seq(
    stray,
    p.tag(NODE.reasoningBlock, p.seq(channel("analysis"), opened, text(NODE.reasoning), end)),
  );
  // For the parser also a preamble header with a constraint (`<|channel|>commentary<|constrain|>json<|message|>`).
  const preambleHead = p.lenient(p.seq(constraint, gap), gap);
  const preamble = p.seq(channel("commentary"), preambleHead, p.literal("<|message|>"), text(NODE.content), end);
  // For the parser also a commentary header with text but no `<|message|>` and no recipient
  // (`<|channel|>commentary... The user asks…<|end|>`, gpt-oss-20b in a llama.cpp issue): no preamble the model
  // finished, so its text is kept as reasoning, out of the answer.
  const headerText = p.until(END, "<|start|>", "<|return|>", "<|call|>", "<|channel|>", "<|message|>");
  const unopenedPreamble = p.seq(
    channel("commentary"),
    p.not(p.choice(p.seq(gap, p.literal("<|message|>")), p.seq(p.space(), p.literal("to=")))),
    p.and(p.seq(headerText, p.not(p.literal("<|message|>")))),
    p.tag(NODE.reasoningBlock, p.capture(NODE.reasoning, headerText)),
    end,
  );
  // For the parser also text written without a channel header before the next message (`Let me check.<|start|>…`,
  // or its header alone: `Let me check.\n<|channel|>commentary to=…`).
  // Or a message without a channel (`<|message|>Hello<|end|>`).
  const textUntilHeader = p.until(START, END, "<|return|>", "<|call|>", "<|channel|>");
  const headerless = p.seq(
    p.not(p.choice(p.literal("<|channel|>"), p.literal(" to="))),
    p.optional(p.literal("<|message|>")),
    p.capture(NODE.content, textUntilHeader),
    p.optional(p.literal(END)),
  );
  const message = p.lenient(p.choice(analysis, preamble, unopenedPreamble, headerless), p.choice(analysis, preamble));
  const earlier = p.zeroOrMore(p.seq(message, next));

  let last: PegId;
  let grammarBody: PegId | undefined;
  const useTools = req.tools.length > 0 && req.toolChoice !== "none" && req.jsonSchema === null;
  if (req.jsonSchema !== null) {
    const answer = jsonAnswerValue(p, req.jsonSchema);
    last = p.seq(stray, channel("final"), constraint, p.literal("<|message|>"), p.space(), answer, p.space());
  } else {
    // The parser also reads a constraint in the answer's header, and the answer's end marker.
    const finalEnd = p.lenient(p.optional(p.seq(gap, p.choice(p.literal("<|return|>"), p.literal(END)))), p.eps());
    const header = p.seq(
      stray,
      channel("final"),
      p.lenient(p.choice(p.seq(constraint, gap, p.literal("<|message|>")), unopened), p.literal("<|message|>")),
    );
    // The parser also reads an answer without a channel (`<|message|>Hello<|end|>`).
    const final = p.seq(p.lenient(p.choice(header, p.literal("<|message|>")), header), text(NODE.content), finalEnd);
    if (useTools) {
      const calls = req.tools.map((t, i) => {
        // The recipient goes in the role header (" to=...<|channel|>commentary") or after the channel.
        // The parser also reads the recipient without its `functions.` prefix; the grammar writes it.
        const recipient = p.lenient(
          p.seq(p.literal(" to="), p.optional(p.literal("functions."))),
          p.literal(" to=functions."),
        );
        const header = p.atomic(
          p.seq(
            recipient,
            p.capture(NODE.toolName, p.literal(t.function.name)),
            p.choice(p.seq(channel("commentary", "analysis"), constraint), constraint),
            gap,
            p.literal("<|message|>"),
          ),
        );
        const params = toolParameters(t);
        const args = p.seq(gap, p.capture(NODE.toolArgs, p.schema(p.json(), params, { name: `tool-${i}-args` })));
        // The parser reads a message with no arguments at all as `{}` where the tool requires none.
        const empty = takesNoArguments(params) ? p.and(p.seq(p.space(), p.literal("<|call|>"))) : null;
        return p.rule(
          `tool-${i}`,
          p.tag(NODE.tool, p.seq(header, empty === null ? args : p.lenient(p.choice(args, empty), args))),
        );
      });
      const call = p.rule("tool-call", p.tag(NODE.toolSection, p.choice(...calls)), { trigger: true });
      const anyChannel = p.optional(channel("commentary", "analysis"));
      // The parser also reads the end-of-call marker where the output still holds it, and a call message that
      // ends as other messages do, with <|end|> (then the next message is read).
      const callEnd = p.lenient(p.choice(p.literal("<|call|>"), p.literal(END)), p.literal("<|call|>"));
      const withChannel = p.seq(anyChannel, call, p.optional(p.seq(p.space(), callEnd)));
      // One call per message: each further call message is read, with the reasoning and preamble
      // messages before it, then the answer (or a message to another recipient) after the last. A
      // message to another recipient after a call (a malformed call too) is content, and reading goes on:
      // each message is tried as a call first, so a call streams as it is written.
      const afterCall = req.readsParallel
        ? p.choice(withChannel, analysis, preamble, final, unsolicited(p))
        : p.choice(analysis, preamble, final, unsolicited(p));
      // For the parser also text after the last call written without a header (`…<|call|>\nHere are…`): content.
      const trailing = p.lenient(p.optional(p.seq(p.space(), p.capture(NODE.content, textUntilHeader))), p.eps());
      const callMessages = p.seq(withChannel, p.zeroOrMore(p.seq(p.space(), next, p.optional(afterCall))), trailing);
      // A call to a function the request does not declare is no call: unsolicited, as content.
      last =
        req.toolChoice === "required"
          ? p.choice(callMessages, unsolicited(p))
          : p.choice(callMessages, final, unsolicited(p));
      if (req.toolChoice === "required") grammarBody = requiredGrammar(p, req, analysis);
    } else {
      last = p.choice(final, unsolicited(p));
    }
  }
  // Whitespace before the first message, not the space that opens a recipient (" to=").
  const lead = p.lenient(p.optional(p.seq(p.space(), p.not(p.literal("to=")))), p.eps());
  // For the parser the output may also end with a message other than the answer (a preamble, reasoning).
  const body = p.seq(lead, earlier, p.lenient(p.choice(last, message), last), p.space(), p.end());
  const root = p.seq(p.literal(START), body);
  const built = dedicatedParser("gpt-oss", p, req, {
    root,
    body,
    ...(grammarBody !== undefined ? { grammarBody, grammarRoot: p.seq(p.literal(START), grammarBody) } : {}),
    useTools,
  });
  return {
    built,
    prefix: START,
    state: "closed",
    preservedTokens: ["<|channel|>", "<|constrain|>", "<|message|>", "<|start|>", "<|end|>"],
  };
}

/** The template reads reasoning from `thinking`; a turn with calls renders them instead of content. */
function adaptMessages(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.role !== "assistant" || typeof m.reasoning_content !== "string") return m;
    const out: Record<string, unknown> = { ...m, thinking: m.reasoning_content };
    if (m.tool_calls && m.tool_calls.length > 0) delete out.content;
    return out as unknown as ChatMessage;
  });
}

/** The GPT-OSS handler. */
export const gptOss: DedicatedHandlerDef = {
  name: "gpt-oss",
  handles: ["gpt-oss"],
  detect: (s) => (sourceHas(s, "<|channel|>") ? "gpt-oss" : null),
  reasoning: { start: "<|channel|>analysis<|message|>", end: `${END}${START}<|channel|>final<|message|>` },
  contentStart: "<|channel|>final<|message|>",
  adaptMessages,
  build,
};
