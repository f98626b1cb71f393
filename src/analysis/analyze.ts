/**
 * Entry point: runs every analysis phase on a chat template and returns the plain-data
 * {@link TemplateAnalysis}. Results are cached per (source, BOS, EOS, compatibility mode).
 *
 * @example
 * import { analyzeTemplate } from "toolwright/analysis";
 * const a = analyzeTemplate(source);
 * console.log(a.tools.format.mode, a.reasoning.start, a.reasoning.end);
 */
import { fromBytes } from "./bytes.js";
import { analyzeContent } from "./content.js";
import { collectPreservedTokens } from "./preserved.js";
import { VariantRenderer } from "./render.js";
import { analyzeReasoning } from "./reasoning.js";
import { roleChannels } from "./role-channels.js";
import { detectAssistantStart, detectUserStart } from "./roles.js";
import { analyzeTools } from "./tools.js";
import { detectAssistantEnd } from "./turn-end.js";
import type { AnalysisFormatHint, TemplateAnalysis } from "./types.js";
import { applyWorkarounds } from "./workarounds.js";
import { checkKeys } from "../validate/index.js";
import { ChatTemplate } from "../template/index.js";
import { withSharedBudget } from "../template/limits.js";

export interface AnalyzeOptions {
  /** Value of `bos_token` while rendering probes (default ""). */
  bosToken?: string;
  /** Value of `eos_token` while rendering probes (default ""). */
  eosToken?: string;
  /**
   * An already-built template for `source` (saves parsing it again). The analysis renders the
   * way it renders (its `compat` mode); without one it builds a `compat: "auto"` template, the
   * mode the chat pipeline renders prompts in.
   */
  template?: ChatTemplate;
  /** Use and fill the per-source cache (default true). */
  cache?: boolean;
  /**
   * The dedicated format the caller recognised in `source` (toolwright/chat's
   * `analyzeChatTemplate` detects it): reported as `dedicatedHandler`, its probe conventions
   * applied, and role channels left to the format. Default: none, the generic analysis.
   */
  format?: AnalysisFormatHint | null;
}

const CACHE_LIMIT = 64;
const cache = new Map<string, TemplateAnalysis>();

/** Converts every string in a plain-data tree from byte strings to JS strings. */
function decodeStrings<T>(value: T): T {
  if (typeof value === "string") return fromBytes(value) as T;
  if (Array.isArray(value)) return value.map((v) => decodeStrings(v)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = decodeStrings(v);
    return out as T;
  }
  return value;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The analysis's renders share one render budget: a hostile template fails them all at once. */
function runAnalysis(...args: Parameters<typeof analyzeRenders>): TemplateAnalysis {
  return withSharedBudget(() => analyzeRenders(...args));
}

function analyzeRenders(
  source: string,
  template: ChatTemplate,
  bosToken: string,
  eosToken: string,
  format: AnalysisFormatHint | null,
): TemplateAnalysis {
  const caps = { ...template.caps };
  const dedicatedHandler = format?.name ?? null;
  // A family may expect its own message conventions (Kimi K2's call ids): the probes follow them.
  const probeMessages = format?.probeMessages;
  const renderer = new VariantRenderer(
    (context) => template.renderRaw(context),
    caps,
    bosToken,
    eosToken,
    probeMessages ? (m) => probeMessages(m) : undefined,
  );

  // Phases work on byte strings (see bytes.ts); everything is decoded before the workarounds,
  // whose markers are ordinary strings.
  // Dedicated formats own their channel syntax (GPT-OSS, Muse Glimmer): their analysis stays
  // the autoparser's, as llama.cpp reports it.
  const channels = dedicatedHandler === null ? roleChannels(renderer) : null;
  const reasoning = channels?.reasoning ?? analyzeReasoning(renderer, caps.supportsToolCalls);
  const content = analyzeContent(renderer, reasoning);
  // A content channel ends with the channel's end-of-message (see role-channels.ts).
  if (channels && content.mode === "PLAIN")
    Object.assign(content, { mode: "ALWAYS_WRAPPED", start: "", end: channels.channelEnd });
  const tools = analyzeTools(renderer, caps, reasoning);
  // The call channel closes like every channel, where its end did not differ from the content's.
  if (channels && tools.format.sectionStart !== "" && tools.format.sectionEnd === "")
    tools.format.sectionEnd = channels.channelEnd;
  const assistantStart = detectAssistantStart(renderer, reasoning);
  const userStart = detectUserStart(renderer);
  const assistantEnd = detectAssistantEnd(renderer, content, userStart);
  const preservedTokens = collectPreservedTokens(reasoning, content, tools);

  const analysis: TemplateAnalysis = decodeStrings({
    reasoning,
    content,
    tools,
    caps,
    userStart,
    assistantStart,
    assistantEnd,
    preservedTokens,
    additionalStops: [] as string[],
    dedicatedHandler,
    renderMode: template.capsRenderMode,
  });
  applyWorkarounds(source, analysis);
  return analysis;
}

/**
 * Analyses a Jinja chat template by rendering probe conversations and diffing them.
 * The returned object is frozen plain data (safe to share and to `JSON.stringify`).
 * Throws TemplateSyntaxError when the source does not compile, TemplateAnalysisError when
 * the renderings cannot be analysed.
 *
 * @example
 * const analysis = analyzeTemplate(readFileSync("Qwen3.jinja", "utf8"));
 * analysis.reasoning; // { mode: "TAG_BASED", start: "<think>\n", end: "</think>\n\n" }
 */
export function analyzeTemplate(source: string, options: AnalyzeOptions = {}): TemplateAnalysis {
  if (typeof source !== "string") {
    throw new TypeError(`analyzeTemplate: source must be a string, got ${source === null ? "null" : typeof source}`);
  }
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      `analyzeTemplate: options must be an object, got ${options === null ? "null" : typeof options}`,
    );
  }
  checkKeys(
    options as Record<string, unknown>,
    ["bosToken", "eosToken", "template", "cache", "format"],
    "analyzeTemplate: options",
  );
  const { bosToken = "", eosToken = "", template, cache: useCache = true, format = null } = options;
  if (typeof bosToken !== "string")
    throw new TypeError(`analyzeTemplate: options.bosToken must be a string, got ${typeof bosToken}`);
  if (typeof eosToken !== "string")
    throw new TypeError(`analyzeTemplate: options.eosToken must be a string, got ${typeof eosToken}`);
  if (template !== undefined && !(template instanceof ChatTemplate)) {
    throw new TypeError("analyzeTemplate: options.template must be a ChatTemplate");
  }
  if (format !== null && (typeof format !== "object" || typeof format.name !== "string" || format.name === "")) {
    throw new TypeError(
      "analyzeTemplate: options.format must be null or { name: non-empty string, probeMessages?: function }",
    );
  }
  if (format?.probeMessages !== undefined && typeof format.probeMessages !== "function") {
    throw new TypeError(
      `analyzeTemplate: options.format.probeMessages must be a function, got ${typeof format.probeMessages}`,
    );
  }
  const compat = template?.compat ?? "auto";
  // A format's probe conventions are its own: the name stands for them in the key.
  const key = `${bosToken}\u0000${eosToken}\u0000${compat}\u0000${format?.name ?? ""}\u0000${source}`;
  if (useCache) {
    const hit = cache.get(key);
    if (hit) return hit;
  }
  const tpl = template ?? new ChatTemplate(source, { bosToken, eosToken, compat });
  const analysis = deepFreeze(runAnalysis(source, tpl, bosToken, eosToken, format));
  if (useCache) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, analysis);
  }
  return analysis;
}
