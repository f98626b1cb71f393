// Reads test/fixtures/analysis-oracle.json (llama.cpp's own analysis of its templates,
// recorded by scripts/record-analysis-oracle.mjs) and maps each record onto toolwright's
// TemplateAnalysis field names, so the two can be compared path by path.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const TEMPLATES_DIR = fileURLToPath(new URL("../../deps/llama.cpp/models/templates/", import.meta.url));
const TABLE_PATH = fileURLToPath(new URL("../fixtures/analysis-oracle.json", import.meta.url));

interface OracleRecord {
  caps: Record<string, boolean>;
  specialized: boolean;
  error?: string;
  analysis: {
    reasoning: { mode: string; start: string; end: string };
    content: { mode: string; start: string; end: string; requires_nonnull_content: boolean };
    tools: {
      format: Record<string, string | boolean | string[]>;
      function: Record<string, string>;
      arguments: Record<string, string | boolean>;
      call_id: { pos: string; prefix: string; suffix: string };
    };
    user_start: string;
    assistant_start: string;
    preserved_tokens: string[];
    additional_stops: string[];
  };
  generator?: { grammar_triggers: { type: number; value: string }[] };
}

export interface OracleTable {
  llamaCppCommit: string;
  templates: Record<string, OracleRecord>;
}

export function loadOracleTable(): OracleTable {
  return JSON.parse(readFileSync(TABLE_PATH, "utf8")) as OracleTable;
}

/** llama.cpp caps key → TemplateCaps key. */
export const CAPS_KEYS: Record<string, string> = {
  supports_tools: "supportsTools",
  supports_tool_calls: "supportsToolCalls",
  supports_parallel_tool_calls: "supportsParallelToolCalls",
  supports_system_role: "supportsSystemRole",
  supports_string_content: "supportsStringContent",
  supports_typed_content: "supportsTypedContent",
  supports_object_arguments: "supportsObjectArguments",
  supports_preserve_reasoning: "supportsPreserveReasoning",
  supports_reasoning_effort: "supportsReasoningEffort",
};

/** The oracle's analysis in toolwright's shape (the fields llama.cpp has). */
export function oracleAnalysis(record: OracleRecord): Record<string, unknown> {
  const a = record.analysis;
  const { format: f, function: fn, arguments: ar, call_id: id } = a.tools;
  const caps: Record<string, boolean> = {};
  for (const [theirs, ours] of Object.entries(CAPS_KEYS)) caps[ours] = record.caps[theirs]!;
  return {
    caps,
    reasoning: a.reasoning,
    content: {
      mode: a.content.mode,
      start: a.content.start,
      end: a.content.end,
      requiresNonNullContent: a.content.requires_nonnull_content,
    },
    tools: {
      format: {
        mode: f.mode,
        sectionStart: f.section_start,
        sectionEnd: f.section_end,
        perCallStart: f.per_call_start,
        perCallEnd: f.per_call_end,
        funNameIsKey: f.fun_name_is_key,
        toolsArrayWrapped: f.tools_array_wrapped,
        openaiWrapperTrigger: f.openai_wrapper_trigger,
        functionField: f.function_field,
        nameField: f.name_field,
        argsField: f.args_field,
        idField: f.id_field,
        genIdField: f.gen_id_field,
        parameterOrder: f.parameter_order,
      },
      function: {
        namePrefix: fn.name_prefix,
        nameSuffix: fn.name_suffix,
        argsSeparator: fn.args_separator,
        close: fn.close,
      },
      arguments: {
        start: ar.start,
        end: ar.end,
        namePrefix: ar.name_prefix,
        nameSuffix: ar.name_suffix,
        valuePrefix: ar.value_prefix,
        valueSuffix: ar.value_suffix,
        separator: ar.separator,
        tolerateIntertagWhitespace: ar.tolerate_intertag_whitespace,
      },
      callId: { position: id.pos, prefix: id.prefix, suffix: id.suffix },
    },
    userStart: a.user_start,
    assistantStart: a.assistant_start,
    preservedTokens: a.preserved_tokens,
    additionalStops: a.additional_stops,
  };
}

/** Flattens plain data to "a.b.c" → leaf (arrays are leaves). */
export function flatten(value: unknown, prefix = "", out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix] = value;
  }
  return out;
}
