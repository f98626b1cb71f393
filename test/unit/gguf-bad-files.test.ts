import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GgmlType, GgufError, gguf, readGguf, writeGguf, type GgufErrorCode } from "../../src/runtime/gguf/index.js";

let dir: string;
let valid: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gguf-bad-"));
  const path = join(dir, "valid.gguf");
  await writeGguf(path, {
    metadata: [
      ["general.architecture", gguf.string("llama")],
      ["tokenizer.ggml.tokens", gguf.stringArray(["<s>", "a", "b"])],
      ["tokenizer.ggml.scores", gguf.array("float32", new Float32Array([0, -1, -2]))],
    ],
    tensors: [
      { name: "token_embd.weight", shape: [32, 3], type: GgmlType.Q8_0, data: new Float32Array(96).fill(0.5) },
      { name: "output_norm.weight", shape: [32], type: GgmlType.F32, data: new Float32Array(32).fill(1) },
    ],
  });
  valid = await readFile(path);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let counter = 0;
async function fileWith(bytes: Uint8Array): Promise<string> {
  const path = join(dir, `case-${counter++}.gguf`);
  await writeFile(path, bytes);
  return path;
}

async function errorOf(path: string): Promise<GgufError> {
  try {
    await readGguf(path);
  } catch (e) {
    expect(e).toBeInstanceOf(GgufError);
    return e as GgufError;
  }
  throw new Error(`${path} was read without error`);
}

/** A header: magic, version, tensor count, kv count, then `rest`. */
function header(version: number, tensors: bigint, kvs: bigint, rest: Buffer = Buffer.alloc(0)): Buffer {
  const h = Buffer.alloc(24);
  h.write("GGUF", 0, "latin1");
  h.writeUInt32LE(version, 4);
  h.writeBigUInt64LE(tensors, 8);
  h.writeBigUInt64LE(kvs, 16);
  return Buffer.concat([h, rest]);
}

function ggufStr(s: string): Buffer {
  const b = Buffer.from(s, "utf8");
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(b.length));
  return Buffer.concat([len, b]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}

describe("readGguf on bad files", () => {
  it("names a missing file", async () => {
    const e = await errorOf(join(dir, "nope.gguf"));
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toContain(join(dir, "nope.gguf"));
  });

  it("refuses a directory", async () => {
    const sub = join(dir, "a-directory.gguf");
    await mkdir(sub);
    const e = await errorOf(sub);
    expect(e.code).toBe("NOT_A_FILE");
    expect(e.message).toMatch(/is a directory/);
  });

  it.each<[string, Buffer, GgufErrorCode, RegExp]>([
    ["an empty file", Buffer.alloc(0), "BAD_MAGIC", /only 0 bytes long/],
    ["a text file", Buffer.from("hello world, not a model"), "BAD_MAGIC", /starts with "hell" instead of "GGUF"/],
    ["version 1", header(1, 0n, 0n), "UNSUPPORTED_VERSION", /unsupported GGUF version 1/],
    ["version 4", header(4, 0n, 0n), "UNSUPPORTED_VERSION", /version 4/],
    ["a big-endian file", header(0x03000000, 0n, 0n), "UNSUPPORTED_VERSION", /big-endian/],
    [
      "2^50 metadata entries",
      header(3, 0n, 2n ** 50n),
      "IMPLAUSIBLE",
      /header claims 1125899906842624 metadata entries.*implausible/,
    ],
    ["2^63 tensors", header(3, 2n ** 63n, 0n), "IMPLAUSIBLE", /implausibly large/],
    [
      "more entries than bytes",
      header(3, 1000n, 1000n, Buffer.alloc(100)),
      "TRUNCATED",
      /header claims 1000 metadata entries and 1000 tensors, needing at least 37000 bytes, but only 100 remain/,
    ],
    [
      "an array of 2^40 strings",
      header(
        3,
        0n,
        1n,
        Buffer.concat([ggufStr("tokenizer.ggml.tokens"), u32(9), u32(8), u64(2n ** 40n), Buffer.alloc(64)]),
      ),
      "IMPLAUSIBLE",
      /array "tokenizer.ggml.tokens" claims 1099511627776 string items/,
    ],
    [
      "a string of 2^40 bytes",
      header(3, 0n, 1n, Buffer.concat([ggufStr("k"), u32(8), u64(2n ** 40n), Buffer.alloc(64)])),
      "TRUNCATED",
      /file is truncated: the value of "k" claims 1099511627776 bytes, but only 64 remain/,
    ],
    [
      "an unknown value type",
      header(3, 0n, 1n, Buffer.concat([ggufStr("k"), u32(13), Buffer.alloc(8)])),
      "INVALID",
      /unknown value type 13 for metadata key "k"/,
    ],
    [
      "a duplicate key",
      header(
        3,
        0n,
        2n,
        Buffer.concat([ggufStr("k"), u32(0), Buffer.from([1]), ggufStr("k"), u32(0), Buffer.from([2])]),
      ),
      "INVALID",
      /duplicate metadata key "k"/,
    ],
    [
      "an alignment that is not a power of two",
      header(3, 0n, 1n, Buffer.concat([ggufStr("general.alignment"), u32(4), u32(48)])),
      "INVALID",
      /general.alignment 48 is not a power of two/,
    ],
    [
      "a 5-dimensional tensor",
      header(3, 1n, 0n, Buffer.concat([ggufStr("t"), u32(5), Buffer.alloc(60)])),
      "INVALID",
      /tensor "t" has 5 dimensions/,
    ],
    [
      "an unknown tensor type",
      header(3, 1n, 0n, Buffer.concat([ggufStr("t"), u32(1), u64(32n), u32(4), u64(0n), Buffer.alloc(32)])),
      "INVALID",
      /tensor "t" has unknown ggml type 4/,
    ],
    [
      "a q8_0 row of 48 elements",
      header(3, 1n, 0n, Buffer.concat([ggufStr("t"), u32(1), u64(48n), u32(8), u64(0n), Buffer.alloc(64)])),
      "INVALID",
      /rows of 48 elements, not a multiple of the block size 32/,
    ],
    [
      "a misaligned tensor offset",
      header(3, 1n, 0n, Buffer.concat([ggufStr("t"), u32(1), u64(1n), u32(0), u64(4n), Buffer.alloc(64)])),
      "INVALID",
      /data offset 4 is not a multiple of the alignment 32/,
    ],
    [
      "tensor data past the end",
      header(
        3,
        1n,
        0n,
        Buffer.concat([ggufStr("t"), u32(2), u64(1024n), u64(1024n), u32(0), u64(0n), Buffer.alloc(8)]),
      ),
      "TRUNCATED",
      /tensor "t" \(4194304 bytes\) would end at offset/,
    ],
  ])("rejects %s", async (_, bytes, code, message) => {
    const e = await errorOf(await fileWith(bytes));
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  it("reports a file truncated at any offset as truncated, naming the offset", async () => {
    // Every prefix of a valid file: header, each key/value, tensor infos and data.
    const prefixes = [4, 5, 12, 23, 24, 30, 60, 100, 150, valid.length - 100, valid.length - 1];
    for (let cut = 4; cut < 200; cut += 7) prefixes.push(cut);
    for (const cut of prefixes) {
      const e = await errorOf(await fileWith(valid.subarray(0, cut)));
      expect(e.code, `cut at ${cut}`).toBe("TRUNCATED");
      expect(e.message, `cut at ${cut}`).toMatch(
        new RegExp(`^${e.path}: file is truncated: .*(ends at offset ${cut}|only \\d+ remain|file ends at ${cut})`),
      );
    }
  });

  it("never crashes on random bytes after a valid magic and version", async () => {
    let seed = 12345;
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 200; i++) {
      const body = Buffer.from(
        Array.from({ length: 8 + Math.floor(random() * 300) }, () => Math.floor(random() * 256)),
      );
      // Small counts so parsing gets past the header into keys, types and lengths.
      const bytes = header(3, BigInt(Math.floor(random() * 3)), BigInt(1 + Math.floor(random() * 4)), body);
      const e = await errorOf(await fileWith(bytes));
      expect(["TRUNCATED", "IMPLAUSIBLE", "INVALID"]).toContain(e.code);
    }
  });

  it("still reads the valid file the bad ones were cut from", async () => {
    const file = await readGguf(await fileWith(valid));
    expect(file.tensors.map((t) => t.name)).toEqual(["token_embd.weight", "output_norm.weight"]);
    expect(file.metadata.get("tokenizer.ggml.tokens")?.value).toEqual(["<s>", "a", "b"]);
  });

  it("rejects a path that is not a string", async () => {
    await expect(readGguf(undefined as unknown as string)).rejects.toThrow(TypeError);
  });
});
