/**
 * What a context shift relies on (contextOverflow "truncate-oldest", native/batch_shift.cc): a
 * conversation rendered without its oldest turn is the previous prompt with one span removed, so the
 * kept turns are still in the KV cache. For every llama.cpp test template, the next turn's prompt
 * (oldest turn dropped, an answer and a question added) keeps the previous prompt's kept turns, up
 * to the latest answer. Where a template renders the end differently (a generation prompt that opens
 * reasoning, which the history renders closed or not at all; Mistral-Nemo's system prompt moved to
 * the last user message; Command R+'s trailing instructions) the rest is evaluated again: the
 * scheduler matches tokens, so any shape is correct, and this one keeps the most.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ChatTemplate } from "../../src/template/index.js";
import type { ChatMessage } from "../../src/types.js";
import { TEMPLATES_DIR } from "../helpers/analysis-oracle.js";

const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string): ChatMessage => ({ role: "assistant", content });
const system: ChatMessage = { role: "system", content: "You are terse." };

function commonPrefix(a: string, b: string, from = 0, at = 0): number {
  let n = 0;
  while (at + n < a.length && from + n < b.length && a[at + n] === b[from + n]) n++;
  return n;
}

/**
 * As the scheduler looks for it (in characters, not tokens): the prompt shares a prefix with the
 * previous one, then goes on with the previous prompt's text from some later place; how much.
 */
function keptTail(previous: string, next: string): string {
  const shared = commonPrefix(previous, next);
  let best = 0;
  for (let b = shared + 1; b < previous.length; b++) best = Math.max(best, commonPrefix(previous, next, shared, b));
  return next.slice(shared, shared + best);
}

const TEMPLATES = readdirSync(TEMPLATES_DIR)
  .filter((f) => f.endsWith(".jinja"))
  .sort();

describe("a conversation without its oldest turn renders as the previous prompt minus a span", () => {
  it.each(TEMPLATES)("%s", (name) => {
    const template = new ChatTemplate(readFileSync(join(TEMPLATES_DIR, name), "utf8"), {
      compat: "auto",
      bosToken: "<s>",
      eosToken: "</s>",
      now: () => new Date(2025, 0, 15),
    });
    const render = (messages: ChatMessage[]) => template.render({ messages, addGenerationPrompt: true });
    const previous = render([
      system,
      user("Oldest question?"),
      assistant("Oldest answer."),
      user("Kept question?"),
      assistant("Kept answer."),
      user("Latest question?"),
    ]);
    const next = render([
      system,
      user("Kept question?"),
      assistant("Kept answer."),
      user("Latest question?"),
      assistant("Latest answer."),
      user("New question?"),
    ]);
    const kept = keptTail(previous, next);
    expect(kept).toContain("Kept answer.");
    expect(kept).not.toContain("Oldest");
  });
});
