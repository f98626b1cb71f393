// Templates that write tool calls as Python call expressions (PYTHONIC), for the analysis, round
// trip, grammar and streaming tests: the real ones found among the reference templates (llama.cpp's
// and templates-dev), and fixtures for the wrappers seen in the wild that no reference template
// has (test/fixtures/pythonic/*.jinja).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { analyzeChatTemplate } from "../../src/chat/index.js";
import { ChatTemplate } from "../../src/template/index.js";
import { TEMPLATES_DIR } from "./analysis-oracle.js";
import type { TemplateCase } from "./chat-roundtrip.js";
import { sharedData } from "./shared-data.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/pythonic/", import.meta.url));

/** What the analysis must find on a pythonic template. */
export interface PythonicExpectation {
  /** Where the template lives. */
  dir: "llama.cpp" | "templates-dev" | "fixtures";
  file: string;
  sectionStart: string;
  sectionEnd: string;
  perCallStart: string;
  perCallEnd: string;
  toolsArrayWrapped: boolean;
  /** The template renders its values so that they read back (see UNREADABLE_VALUES). */
  roundTrips: boolean;
}

/**
 * Templates whose rendered calls cannot be read back as the message that was rendered: a
 * property of the template, not of the parser.
 */
export const UNREADABLE_VALUES: Record<string, string> = {
  "vllm--toolace.jinja":
    'prints each value with `"%sr" | format(value)` (meant to be `%r`): `city=Parisr`, an unquoted string ' +
    "with a stray 'r', so no parser can recover the value.",
};

export const PYTHONIC_TEMPLATES: PythonicExpectation[] = [
  {
    dir: "llama.cpp",
    file: "LFM2.5-8B-A1B.jinja",
    sectionStart: "<|tool_call_start|>",
    sectionEnd: "<|tool_call_end|>",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: true,
  },
  {
    dir: "templates-dev",
    file: "vllm--toolace.jinja",
    sectionStart: "",
    sectionEnd: "",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: false,
  },
  {
    dir: "fixtures",
    file: "python-start.jinja",
    sectionStart: "<|python_start|>",
    sectionEnd: "<|python_end|>",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: true,
  },
  {
    dir: "fixtures",
    file: "tool-call-start.jinja",
    sectionStart: "<|tool_call_start|>",
    sectionEnd: "<|tool_call_end|>",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: true,
  },
  {
    dir: "fixtures",
    file: "bare-list.jinja",
    sectionStart: "",
    sectionEnd: "",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: true,
  },
  {
    dir: "fixtures",
    file: "functools.jinja",
    sectionStart: "functools",
    sectionEnd: "",
    perCallStart: "",
    perCallEnd: "",
    toolsArrayWrapped: true,
    roundTrips: true,
  },
  {
    dir: "fixtures",
    file: "tool-code-blocks.jinja",
    sectionStart: "",
    sectionEnd: "",
    perCallStart: "```tool_code",
    perCallEnd: "```",
    toolsArrayWrapped: false,
    roundTrips: true,
  },
];

/** The path of an expectation's template, or null when its shared data is missing. */
export function pythonicTemplatePath(e: PythonicExpectation): string | null {
  if (e.dir === "llama.cpp") return join(TEMPLATES_DIR, e.file);
  if (e.dir === "fixtures") return join(FIXTURES, e.file);
  const dir = sharedData("templates-dev");
  return dir === null ? null : join(dir, e.file);
}

/**
 * A pythonic template ready for a round trip through the generic parser. LFM2.5's analysis names
 * a dedicated handler (as llama.cpp does); it is cleared here so the generic PYTHONIC parser is
 * what gets tested.
 */
export function pythonicCase(e: PythonicExpectation): TemplateCase | null {
  const path = pythonicTemplatePath(e);
  if (path === null) return null;
  const source = readFileSync(path, "utf8");
  const template = new ChatTemplate(source, { compat: "auto" });
  const analysis = { ...analyzeChatTemplate(source, { template }), dedicatedHandler: null };
  return { name: e.file, source, template, analysis };
}
