// What a chat grammar must accept of a model output: the whole output for a strict grammar, the
// output from the first trigger on for a lazy one (what llama.cpp's lazy grammar sees).
import type { ChatGrammarTrigger, ChatParams } from "../../src/chat/index.js";

/** The output from the first trigger on, or null when none fires. */
export function fromTrigger(output: string, triggers: ChatGrammarTrigger[]): string | null {
  let best = -1;
  for (const t of triggers) {
    let at = -1;
    if (t.type === "pattern") {
      const m = new RegExp(t.value).exec(output);
      if (m) at = m.index + (m[1] !== undefined ? m[0].indexOf(m[1]) : 0);
    } else at = output.indexOf(t.value);
    if (at >= 0 && (best < 0 || at < best)) best = at;
  }
  return best < 0 ? null : output.slice(best);
}

/** The part of `output` the request's grammar must accept (null: a lazy grammar never starts). */
export function grammarInput(params: ChatParams, output: string): string | null {
  return params.grammarLazy ? fromTrigger(output, params.grammarTriggers) : output;
}
