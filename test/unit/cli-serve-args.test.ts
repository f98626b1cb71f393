// The command-line flags of `toolwright serve` and `toolwright rpc-server`, through the one
// option parser of src/cli/args.ts: values, defaults, and the usage error each mistake gives; and
// serve's port check, which comes before the model is looked at.
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.js";
import { runRpcServer } from "../../src/cli/rpc-server.js";
import { parseServeArgs, runServe, SERVE_USAGE } from "../../src/cli/serve.js";

describe("toolwright serve flags", () => {
  const VALID: { args: string[]; expected: Record<string, unknown> }[] = [
    {
      args: ["m.gguf"],
      expected: {
        modelPath: "m.gguf",
        host: "127.0.0.1",
        port: 8080,
        parallel: 4,
        threads: undefined,
        batchSize: undefined,
        contextSize: undefined,
        aliases: [],
        cors: undefined,
        contextOverflow: undefined,
        quiet: false,
        maxTokens: undefined,
      },
    },
    {
      args: ["m.gguf", "--alias", "tiny", "--alias=gpt-4o-mini", "-q"],
      expected: { aliases: ["tiny", "gpt-4o-mini"], quiet: true },
    },
    { args: ["m.gguf", "--cors", "*"], expected: { cors: ["*"] } },
    {
      args: ["m.gguf", "--cors", "https://a.example, http://localhost:3000", "--cors", "https://b.example"],
      expected: { cors: ["https://a.example", "http://localhost:3000", "https://b.example"] },
    },
    { args: ["m.gguf", "--context-overflow", "truncate-oldest"], expected: { contextOverflow: "truncate-oldest" } },
    { args: ["m.gguf", "--context-overflow", "error", "--quiet"], expected: { contextOverflow: "error", quiet: true } },
    {
      args: ["m.gguf", "--parallel", "16", "--threads", "2"],
      expected: { parallel: 16, threads: 2, threadsBatch: undefined },
    },
    {
      args: ["m.gguf", "--parallel=1", "--threads-batch", "3", "--batch-size", "64"],
      expected: { parallel: 1, threadsBatch: 3, batchSize: 64 },
    },
    {
      args: ["m.gguf", "--context-size", "4096", "--port", "0", "--max-tokens", "32"],
      expected: { contextSize: 4096, port: 0, maxTokens: 32 },
    },
    { args: ["m.gguf", "--parallel", "256"], expected: { parallel: 256 } },
    { args: ["m.gguf"], expected: { flashAttention: undefined } },
    { args: ["m.gguf", "--flash-attention", "off"], expected: { flashAttention: false } },
    { args: ["m.gguf", "--flash-attention=on"], expected: { flashAttention: true } },
    { args: ["m.gguf", "--flash-attention", "auto"], expected: { flashAttention: undefined } },
    { args: ["m.gguf"], expected: { speculative: { lookup: false } } },
    { args: ["m.gguf", "--lookup", "--draft-max", "12"], expected: { speculative: { lookup: true, draftMax: 12 } } },
    { args: ["m.gguf", "--draft-model", "d.gguf"], expected: { speculative: { lookup: false, draftModel: "d.gguf" } } },
  ];
  it.each(VALID)("$args", ({ args, expected }) => {
    expect(parseServeArgs(args)).toMatchObject(expected);
  });

  const INVALID: { args: string[]; message: RegExp }[] = [
    { args: ["m.gguf", "--parallel", "0"], message: /--parallel must be an integer in \[1, 256\], got "0"/ },
    { args: ["m.gguf", "--parallel", "257"], message: /--parallel must be an integer in \[1, 256\], got "257"/ },
    { args: ["m.gguf", "--parallel", "2.5"], message: /--parallel must be an integer/ },
    { args: ["m.gguf", "--parallel"], message: /--parallel needs a value \(N\)/ },
    { args: ["m.gguf", "--threads", "0"], message: /--threads must be an integer in \[1, 1024\], got "0"/ },
    { args: ["m.gguf", "--threads", "many"], message: /--threads must be an integer/ },
    { args: ["m.gguf", "--threads-batch", "-1"], message: /--threads-batch must be an integer/ },
    { args: ["m.gguf", "--batch-size", "0"], message: /--batch-size must be an integer/ },
    { args: ["m.gguf", "--context-size", "x"], message: /--context-size must be an integer/ },
    { args: ["m.gguf", "--port", "http"], message: /--port must be an integer in \[0, 65535\]/ },
    { args: ["m.gguf", "--paralel", "4"], message: /unknown option --paralel \(did you mean --parallel\?\)/ },
    { args: ["m.gguf", "--host", ""], message: /--host must not be empty/ },
    { args: [], message: /expected one model path, got 0/ },
    { args: ["m.gguf", "--alias", ""], message: /--alias must not be empty/ },
    { args: ["m.gguf", "--cors", "https://a.example/"], message: /--cors: "https:\/\/a\.example\/" is not an origin/ },
    { args: ["m.gguf", "--cors", "a.example"], message: /--cors: "a\.example" is not an origin/ },
    {
      args: ["m.gguf", "--context-overflow", "drop"],
      message: /--context-overflow must be error or truncate-oldest, got "drop"/,
    },
    { args: ["m.gguf", "--quiet=1"], message: /--quiet takes no value/ },
    { args: ["m.gguf", "--draft-max", "4"], message: /--draft-max needs --draft-model or --lookup/ },
    { args: ["m.gguf", "--lookup", "--draft-max", "0"], message: /--draft-max must be an integer in \[1, 64\]/ },
    { args: ["m.gguf", "--draft-model", ""], message: /--draft-model must name a model file/ },
    { args: ["m.gguf", "--lookup", "--draft-p-min", "0.5"], message: /--draft-p-min needs --draft-model/ },
    { args: ["m.gguf", "--draft-model", "d.gguf", "--draft-p-min", "2"], message: /--draft-p-min must be a number in/ },
    { args: ["a.gguf", "b.gguf"], message: /expected one model path, got 2/ },
    {
      args: ["m.gguf", "--flash-attention", "yes"],
      message: /--flash-attention must be on, off or auto, got "yes"/,
    },
  ];
  it.each(INVALID)("$args is a usage error", ({ args, message }) => {
    expect(() => parseServeArgs(args)).toThrow(UsageError);
    expect(() => parseServeArgs(args)).toThrow(message);
  });

  it("--help asks for the help, which lists every flag", () => {
    expect(parseServeArgs(["--help"])).toBe("help");
    for (const flag of [
      "--parallel N",
      "--threads N",
      "--threads-batch N",
      "--batch-size N",
      "--flash-attention MODE",
      "--context-size N",
      "--api-key KEY",
      "--alias NAME",
      "--cors ORIGINS",
      "--context-overflow MODE",
      "-q, --quiet",
      "POST /v1/embeddings",
      "POST /v1/rerank",
      "-h, --help",
    ])
      expect(SERVE_USAGE).toContain(flag);
    // The one default of maxTokens, as chat() has it.
    expect(SERVE_USAGE).toMatch(/a request that sets none gets 1024/);
  });

  it("checks the port before it looks at the model: a taken port fails at once, exit 1", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    let stderr = "";
    try {
      const io = { stdout: { write: () => true }, stderr: { write: (t: string) => ((stderr += t), true) } };
      // The model does not exist: a check made after loading would report that instead.
      expect(await runServe(["no-such-model.gguf", "--port", String(port)], io as never)).toBe(1);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    expect(stderr).toMatch(new RegExp(`^toolwright serve: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    expect(stderr).not.toMatch(/no-such-model/);
  });
});

describe("toolwright rpc-server flags", () => {
  const io = () => {
    const out = { stdout: "", stderr: "" };
    return {
      out,
      io: { stdout: { write: (s: string) => (out.stdout += s) }, stderr: { write: (s: string) => (out.stderr += s) } },
    };
  };
  const USAGE: { args: string[]; message: RegExp }[] = [
    { args: ["--port", "abc"], message: /--port must be a positive integer, got "abc"/ },
    { args: ["--threads", "-2"], message: /--threads must be a positive integer/ },
    { args: ["--bogus"], message: /unknown option --bogus/ },
    { args: ["--prot", "1"], message: /unknown option --prot \(did you mean --port\?\)/ },
    { args: ["--port"], message: /--port needs a value/ },
    { args: ["extra"], message: /takes no positional arguments, got "extra"/ },
  ];
  it.each(USAGE)("$args exits 2", async ({ args, message }) => {
    const { out, io: streams } = io();
    expect(await runRpcServer(args, streams as never)).toBe(2);
    expect(out.stderr).toMatch(message);
  });

  it("--help prints the usage with every flag", async () => {
    const { out, io: streams } = io();
    expect(await runRpcServer(["--help"], streams as never)).toBe(0);
    for (const flag of ["--host H", "--port N", "--threads N", "-h, --help"]) expect(out.stdout).toContain(flag);
  });
});
