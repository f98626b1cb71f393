// The node-llama-cpp side of bench:toolcall, in a child process of its own (node-llama-cpp loads its own llama.cpp
// build, which must not meet toolwright's addon in one process). Started by node-llama-cpp.mjs with a JSON config as
// argv[2]; it loads the model, writes {"ready":…} as one line on stdout, then answers each stdin line
// {"toolChoice":"required"|"auto"} with one line of results (see callOnce). Failures: one {"error":…} line, exit 1.
//
// Only node-llama-cpp's public API: getLlama, loadModel, createContext, LlamaChatSession with functions made by
// defineChatSessionFunction, and the ChatWrapper context-state fields for the forced call.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const config = JSON.parse(process.argv[2]);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

try {
  await main();
} catch (error) {
  send({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

async function main() {
  const nlc = await import(pathToFileURL(config.entry).href);
  const llama = await nlc.getLlama({ gpu: false, build: "never", maxThreads: config.threads, logLevel: "error" });
  const model = await llama.loadModel({ modelPath: config.modelPath });
  const context = await model.createContext({ contextSize: config.contextSize, threads: config.threads });
  // One sequence for every run, as a server's slot: a new session re-uses the evaluated prompt prefix.
  const sequence = context.getSequence();
  const probe = new nlc.LlamaChatSession({ contextSequence: sequence });
  const wrapper = probe.chatWrapper;
  probe.dispose();
  if (wrapper.settings.functions == null) throw new Error(`chat wrapper ${wrapper.wrapperName} has no function calls`);
  const forced = forcedCallWrapper(nlc, wrapper);
  send({
    ready: true,
    wrapper: wrapper.wrapperName,
    callPrefix: nlc.LlamaText(wrapper.settings.functions.call.prefix).toString(),
  });
  for await (const line of createInterface({ input: process.stdin })) {
    const { toolChoice } = JSON.parse(line);
    send(await callOnce(nlc, sequence, toolChoice === "required" ? forced : wrapper));
  }
}

/**
 * node-llama-cpp has no tool_choice. Its nearest equivalent of a forced call: the same chat wrapper, but the context
 * state it generates has no prefix triggers and a `functionCall` noPrefixTrigger that injects the call prefix, so
 * LlamaChat starts in function-call mode (the function-name grammar, then the parameters grammar) at the first token.
 */
function forcedCallWrapper(nlc, wrapper) {
  const forced = Object.create(wrapper);
  forced.generateContextState = (options) => {
    const state = wrapper.generateContextState(options);
    const inject = nlc.LlamaText(wrapper.settings.functions.call.prefix);
    return {
      contextText: state.contextText,
      stopGenerationTriggers: state.stopGenerationTriggers,
      prefixTriggers: [],
      noPrefixTrigger: { type: "functionCall", inject },
    };
  };
  return forced;
}

/**
 * One answer. Times are ms from the prompt call; the call is done when node-llama-cpp hands it to the function's
 * handler (then generation is aborted, as a server's stream ends with the call). Passes and tokens come from the
 * sequence's token meter: output tokens are the decodes that asked for logits, one per sampled token.
 */
async function callOnce(nlc, sequence, chatWrapper) {
  const session = new nlc.LlamaChatSession({ contextSequence: sequence, chatWrapper, systemPrompt: config.system });
  const abort = new AbortController();
  const before = sequence.tokenMeter.getState();
  const started = performance.now();
  /** @type {number | undefined} */
  let firstToken;
  /** @type {number | undefined} */
  let firstCall;
  /** @type {number | undefined} */
  let done;
  /** @type {number | undefined} */
  let sampled;
  let name = "";
  let args = "";
  const functions = {
    [config.tool.name]: nlc.defineChatSessionFunction({
      description: config.tool.description,
      params: config.tool.parameters,
      handler(params) {
        done = performance.now();
        sampled = sequence.tokenMeter.diff(before).usedOutputTokens;
        name = config.tool.name;
        args = JSON.stringify(params);
        abort.abort();
        return "ok";
      },
    }),
  };
  await session.prompt(config.user, {
    functions,
    maxParallelFunctionCalls: 1,
    maxTokens: config.maxTokens,
    temperature: 0,
    signal: abort.signal,
    stopOnAbortSignal: true,
    onResponseChunk: () => {
      firstToken ??= performance.now();
    },
    onFunctionCallParamsChunk: () => {
      firstToken ??= performance.now();
      firstCall ??= performance.now();
    },
  });
  done ??= performance.now();
  sampled ??= sequence.tokenMeter.diff(before).usedOutputTokens;
  session.dispose();
  return {
    passes: sampled,
    tokens: sampled,
    tps: firstToken !== undefined && done > firstToken ? ((sampled - 1) * 1000) / (done - firstToken) : 0,
    first: firstCall === undefined ? null : firstCall - started,
    total: done - started,
    name,
    args,
  };
}
