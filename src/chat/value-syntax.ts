/**
 * Whether a template writes non-string argument values as Python literals (`True`, `None`,
 * `{'k': 'v'}`) rather than JSON: tagged formats print values with the template's own
 * conversion, and the grammar must allow what the model learned to write.
 */
import type { ChatTemplate } from "../template/index.js";

/** How a template writes non-string values: Python literals for scalars, and for containers. */
interface ValueSyntax {
  python: boolean;
  pythonContainers: boolean;
}

const cache = new WeakMap<ChatTemplate, ValueSyntax>();

/**
 * Renders a probe call with a boolean and an object argument and looks at how they come out.
 *
 * @example
 * rendersPythonLiterals(qwen3CoderTemplate); // true: "<parameter=flag>\nTrue\n</parameter>"
 */
export function rendersPythonLiterals(template: ChatTemplate): boolean {
  return syntaxOf(template).python;
}

/**
 * Whether the template writes objects and arrays as Python literals (`{'k': 'v'}`); false where
 * it writes them as JSON (Qwen3-Coder: `tojson` for mappings, `str()` for scalars), whose
 * schema the grammar can then enforce.
 *
 * @example
 * rendersPythonContainers(qwen3CoderTemplate); // false: '<parameter=obj>\n{"k": "v"}\n</parameter>'
 */
export function rendersPythonContainers(template: ChatTemplate): boolean {
  return syntaxOf(template).pythonContainers;
}

function syntaxOf(template: ChatTemplate): ValueSyntax {
  const hit = cache.get(template);
  if (hit !== undefined) return hit;
  let syntax: ValueSyntax = { python: false, pythonContainers: false };
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
    const containers = out.includes("'probe_key'");
    syntax = { python: /\bTrue\b/.test(out) || containers, pythonContainers: containers };
  } catch {
    syntax = { python: false, pythonContainers: false };
  }
  cache.set(template, syntax);
  return syntax;
}
