/**
 * Whether a template writes non-string argument values as Python literals (`True`, `None`,
 * `{'k': 'v'}`) rather than JSON: tagged formats print values with the template's own
 * conversion, and the grammar must allow what the model learned to write.
 */
import type { ChatTemplate } from "../template/index.js";

const cache = new WeakMap<ChatTemplate, boolean>();

/**
 * Renders a probe call with a boolean and an object argument and looks at how they come out.
 *
 * @example
 * rendersPythonLiterals(qwen3CoderTemplate); // true: "<parameter=flag>\nTrue\n</parameter>"
 */
export function rendersPythonLiterals(template: ChatTemplate): boolean {
  const hit = cache.get(template);
  if (hit !== undefined) return hit;
  let python = false;
  try {
    const out = template.render({
      messages: [
        { role: "user", content: "probe" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "call12345", type: "function", function: { name: "probe_fn", arguments: '{"probe_flag": true, "probe_obj": {"probe_key": "probe_value"}}' } }],
        },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "probe_fn",
            description: "probe",
            parameters: {
              type: "object",
              properties: { probe_flag: { type: "boolean", description: "b" }, probe_obj: { type: "object", description: "o", additionalProperties: {} } },
            },
          },
        },
      ],
      addGenerationPrompt: false,
    });
    python = /\bTrue\b/.test(out) || out.includes("'probe_key'");
  } catch {
    python = false;
  }
  cache.set(template, python);
  return python;
}
