/**
 * Whether a template writes non-string argument values as Python literals (`True`, `None`,
 * `{'k': 'v'}`) rather than JSON: tagged formats print values with the template's own
 * conversion, and the grammar must allow what the model learned to write.
 */
import type { ChatTemplate } from "../template/index.js";

/** How a template writes non-string values: Python literals for scalars, and for containers. */
interface ValueSyntax {
  python: boolean;
  pythonContainers: { objects: boolean; arrays: boolean };
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
 * Which containers a tagged template writes as JSON beside Python scalars (none when the format
 * is not tagged): the grammar copy enforces their schema as JSON.
 *
 * @example
 * jsonContainersOf(true, qwen3CoderTemplate); // { objects: true, arrays: true }
 */
export function jsonContainersOf(tagged: boolean, template: ChatTemplate): { objects: boolean; arrays: boolean } {
  if (!tagged) return { objects: false, arrays: false };
  const python = syntaxOf(template).pythonContainers;
  return { objects: !python.objects, arrays: !python.arrays };
}

function syntaxOf(template: ChatTemplate): ValueSyntax {
  const hit = cache.get(template);
  if (hit !== undefined) return hit;
  let syntax: ValueSyntax = { python: false, pythonContainers: { objects: false, arrays: false } };
  try {
    const out = template.render({
      messages: [
        { role: "user", content: "probe" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            {
              id: "call12345",
              type: "function",
              function: {
                name: "probe_fn",
                arguments:
                  '{"probe_flag": true, "probe_obj": {"probe_key": "probe_value"}, "probe_list": ["probe_item"]}',
              },
            },
          ],
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
              properties: {
                probe_flag: { type: "boolean", description: "b" },
                probe_obj: { type: "object", description: "o", additionalProperties: {} },
                probe_list: { type: "array", description: "l", items: {} },
              },
            },
          },
        },
      ],
      addGenerationPrompt: false,
    });
    const objects = out.includes("'probe_key'");
    const arrays = out.includes("'probe_item'");
    syntax = { python: /\bTrue\b/.test(out) || objects || arrays, pythonContainers: { objects, arrays } };
  } catch {
    syntax = { python: false, pythonContainers: { objects: false, arrays: false } };
  }
  cache.set(template, syntax);
  return syntax;
}
