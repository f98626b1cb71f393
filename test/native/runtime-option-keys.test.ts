/**
 * Unknown keys of the runtime's options objects are rejected, naming the object and the key
 * with a "did you mean" hint (a misspelt option used to be ignored silently).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Context, loadModel, type Model } from "../../src/index.js";
import { ChatSession } from "../../src/session/index.js";
import { ensureTestModel } from "../helpers/test-models.js";

let path: string;
let model: Model;
let context: Context;
beforeAll(async () => {
  path = await ensureTestModel({ vocab: "llama-spm", template: "meta-llama-Llama-3.1-8B-Instruct" });
  model = await loadModel(path);
  context = await model.createContext({ contextSize: 256 });
});
afterAll(() => {
  context?.dispose();
  model?.dispose();
});

const cases: { name: string; run: () => unknown; message: RegExp }[] = [
  {
    name: "loadModel",
    run: () => loadModel(path, { gpuLayer: 0 } as never),
    message: /^loadModel: options has an unknown key "gpuLayer" \(did you mean "gpuLayers"\?\)$/,
  },
  {
    name: "loadModel (no close key)",
    run: () => loadModel(path, { cache: true } as never),
    message: new RegExp(
      /^loadModel: options has an unknown key "cache" /.source +
        /\(known keys: onProgress, signal, vocabOnly, gpuLayers, gpu, useMmap, download, rpcServers, projector\)$/
          .source,
    ),
  },
  {
    name: "createContext",
    run: () => model.createContext({ context_size: 64 } as never),
    message: /^createContext: options has an unknown key "context_size" \(did you mean "contextSize"\?\)$/,
  },
  {
    name: "generate",
    run: () => context.generate({ prompt: "a", maxToken: 1 } as never),
    message: /^generate: options has an unknown key "maxToken" \(did you mean "maxTokens"\?\)$/,
  },
  {
    name: "generate sampling",
    run: () => context.generate({ prompt: "a", sampling: { top_p: 0.5 } } as never),
    message: /^generate: options.sampling has an unknown key "top_p" \(did you mean "topP"\?\)$/,
  },
  {
    name: "generate grammar",
    run: () => context.generate({ prompt: "a", grammar: { gbnf: 'root ::= "a"', roots: "root" } } as never),
    message: /^generate: options.grammar has an unknown key "roots" \(did you mean "root"\?\)$/,
  },
  {
    name: "generate grammar.lazy",
    run: () => context.generate({ prompt: "a", grammar: { gbnf: 'root ::= "a"', lazy: { pattern: ["a"] } } } as never),
    message: /^generate: options.grammar.lazy has an unknown key "pattern" \(did you mean "patterns"\?\)$/,
  },
  {
    name: "tokenize",
    run: () => model.tokenize("a", { addSpecials: true } as never),
    message: /^Model.tokenize: options has an unknown key "addSpecials" \(did you mean "addSpecial"\?\)$/,
  },
  {
    name: "tokenizeAsync",
    run: () => model.tokenizeAsync("a", { parse_special: true } as never),
    message: /^Model.tokenizeAsync: options has an unknown key "parse_special" \(did you mean "parseSpecial"\?\)$/,
  },
  {
    name: "detokenize",
    run: () => model.detokenize([1], { removeSpecials: true } as never),
    message: /^Model.detokenize: options has an unknown key "removeSpecials" \(did you mean "removeSpecial"\?\)$/,
  },
  {
    name: "ChatSession",
    run: () => new ChatSession(model, { contextt: {} } as never),
    message: /^ChatSession: options has an unknown key "contextt" \(did you mean "context"\?\)$/,
  },
];

describe("unknown option keys", () => {
  it.each(cases)("$name", async ({ run, message }) => {
    let error: unknown;
    try {
      const r = run();
      if (r instanceof Promise) await r;
      else if (r && typeof (r as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function")
        for await (const _ of r as AsyncIterable<unknown>);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
  });
});
