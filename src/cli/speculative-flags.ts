/**
 * The speculative-decoding flags `toolwright chat` and `toolwright serve` share: `--draft-model` (a draft model
 * with the model's vocabulary), `--lookup` (prompt lookup) and `--draft-max`, as the context option
 * `speculative`.
 *
 * @example
 * const flags = speculativeFlagsOf({ lookup: true, "draft-max": "12" }); // { lookup: true, draftMax: 12 }
 */
import { ModelLoadError } from "../runtime/errors.js";
import type { SpeculativeOptions } from "../runtime/context-options.js";
import type { Model } from "../runtime/model.js";
import { loadModel } from "../session/index.js";
import { type OptionTable, type ParsedArgs, parseNumberOption, stringValue, UsageError } from "./args.js";

/** The rows of a command's option table. */
export const SPECULATIVE_OPTIONS: OptionTable = {
  "draft-model": {
    type: "string",
    value: "FILE",
    help: "speculative decoding with a draft model of the same vocabulary (a smaller one of\nthe family)",
  },
  lookup: {
    type: "boolean",
    help: "speculative decoding with prompt lookup: draft what followed the last tokens\nearlier in the conversation",
  },
  "draft-max": { type: "string", value: "N", help: "most tokens drafted for one forward pass, 1 to 64 (default 8)" },
  "draft-p-min": {
    type: "string",
    value: "P",
    help: "a draft stops at a token the draft model gives less than P, 0 to 1 (default 0.75)",
  },
};

/** What the flags ask for. */
export interface SpeculativeFlags {
  draftModel?: string;
  lookup: boolean;
  draftMax?: number;
  draftPMin?: number;
}

/** The flags' values, checked (a {@link UsageError} names the flag). */
export function speculativeFlagsOf(values: ParsedArgs["values"]): SpeculativeFlags {
  const draftModel = stringValue(values, "draft-model");
  if (draftModel === "") throw new UsageError("--draft-model must name a model file");
  const max = stringValue(values, "draft-max");
  const draftMax = max === undefined ? undefined : parseNumberOption("draft-max", max, true, 1, 64);
  const pMin = stringValue(values, "draft-p-min");
  const draftPMin = pMin === undefined ? undefined : parseNumberOption("draft-p-min", pMin, false, 0, 1);
  const lookup = values.lookup === true;
  if (draftMax !== undefined && draftModel === undefined && !lookup)
    throw new UsageError("--draft-max needs --draft-model or --lookup");
  if (draftPMin !== undefined && draftModel === undefined) throw new UsageError("--draft-p-min needs --draft-model");
  return {
    lookup,
    ...(draftModel !== undefined ? { draftModel } : {}),
    ...(draftMax !== undefined ? { draftMax } : {}),
    ...(draftPMin !== undefined ? { draftPMin } : {}),
  };
}

/**
 * The context option for `model`, with the draft model loaded (the caller disposes it); or the error message. A
 * draft model of another vocabulary size or other special tokens is refused here, before any request (the context
 * checks every token's text too).
 */
export async function loadSpeculative(
  flags: SpeculativeFlags,
  model: Model,
  load: Parameters<typeof loadModel>[1] = {},
): Promise<{ options?: SpeculativeOptions; draft?: Model } | string> {
  if (flags.draftModel === undefined && !flags.lookup) return {};
  let draft: Model | undefined;
  if (flags.draftModel !== undefined) {
    try {
      draft = await loadModel(flags.draftModel, load);
    } catch (e) {
      if (e instanceof ModelLoadError) return `--draft-model: ${e.message}`;
      throw e;
    }
    const mismatch = vocabularyMismatch(model, draft);
    if (mismatch !== undefined) {
      draft.dispose();
      return `--draft-model: ${flags.draftModel} cannot draft for ${model.path}: ${mismatch}`;
    }
  }
  const options: SpeculativeOptions = {
    lookup: flags.lookup,
    ...(draft ? { draft } : {}),
    ...(flags.draftMax !== undefined ? { maxDraft: flags.draftMax } : {}),
    ...(flags.draftPMin !== undefined ? { minProbability: flags.draftPMin } : {}),
  };
  return { options, ...(draft ? { draft } : {}) };
}

function vocabularyMismatch(model: Model, draft: Model): string | undefined {
  if (draft.vocabSize !== model.vocabSize)
    return `its vocabulary has ${draft.vocabSize} tokens, the model's ${model.vocabSize}`;
  const a = model.specialTokens;
  const b = draft.specialTokens;
  if (a.bos !== b.bos || a.eos !== b.eos) return "its special tokens (BOS, EOS) differ from the model's";
  return undefined;
}
