/**
 * Templates and their analyses, built once per (source, BOS, EOS): the analysis renders dozens
 * of probe conversations, far too slow to repeat per request.
 */
import type { TemplateAnalysis } from "../analysis/index.js";
import { analyzeChatTemplate } from "../chat/index.js";
import { ChatTemplate } from "../template/index.js";

export interface PreparedTemplate {
  template: ChatTemplate;
  analysis: TemplateAnalysis;
}

const LIMIT = 32;
const cache = new Map<string, PreparedTemplate>();

/**
 * The template and analysis for a source, from the cache when possible (least recently used
 * entries are dropped past 32).
 *
 * @example
 * const { template, analysis } = preparedTemplate(model.chatTemplate!, "<s>", "</s>");
 */
export function preparedTemplate(source: string, bosToken: string, eosToken: string): PreparedTemplate {
  const key = JSON.stringify([bosToken, eosToken]) + source;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const template = new ChatTemplate(source, { bosToken, eosToken, compat: "auto" });
  const analysis = analyzeChatTemplate(source, { bosToken, eosToken, template });
  const entry = { template, analysis };
  cache.set(key, entry);
  if (cache.size > LIMIT) cache.delete(cache.keys().next().value as string);
  return entry;
}
