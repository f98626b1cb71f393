// The command-line flags of `toolwright serve` and `toolwright rpc-server`, through the one
// option parser of src/cli/args.ts: values, defaults, and the usage error each mistake gives.
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.js";
import { runRpcServer } from "../../src/cli/rpc-server.js";
import { parseServeArgs, SERVE_USAGE } from "../../src/cli/serve.js";

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
      },
    },
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
    { args: ["a.gguf", "b.gguf"], message: /expected one model path, got 2/ },
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
      "--context-size N",
      "--api-key KEY",
      "-h, --help",
    ])
      expect(SERVE_USAGE).toContain(flag);
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
