// A seeded sweep of GGUF mutants of a small working model: byte flips in the header, truncations,
// huge counts and lengths, wrong value and tensor types, duplicated keys, odd metadata values.
// Whatever the mutant, loading it (and, when it loads, tokenizing and decoding) must end in a
// value or an error: never a crash or a hang. Mutants run in batches, one child process each; a
// crash names the mutant that caused it.
import { mkdtempSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readGguf, readTensorBytes } from "../../src/runtime/gguf/index.js";
import { GgmlType, ggmlTensorBytes } from "../../src/runtime/gguf/ggml-types.js";
import { Xoshiro128 } from "../../src/runtime/gguf/random.js";
import type { GgufValue } from "../../src/runtime/gguf/types.js";
import { gguf } from "../../src/runtime/gguf/values.js";
import { type GgufTensorSpec, writeGguf } from "../../src/runtime/gguf/writer.js";
import { isolated } from "../helpers/isolated.js";
import { ensureTestModel } from "../helpers/test-models.js";

/** TOOLWRIGHT_MUTANT_SEED / TOOLWRIGHT_MUTANT_BATCHES explore further; the defaults are what CI runs. */
const SEED = Number(process.env.TOOLWRIGHT_MUTANT_SEED ?? 16);
const BATCHES = Number(process.env.TOOLWRIGHT_MUTANT_BATCHES ?? 6);
/** The vocabulary of the mutated model (TOOLWRIGHT_MUTANT_VOCAB, any ggml-vocab-NAME.gguf name). */
const VOCAB = process.env.TOOLWRIGHT_MUTANT_VOCAB ?? "llama-spm";
const PER_BATCH = 50; // 300 mutants in all
/** CPU seconds a whole batch may use: a bound on work, far above what it needs. */
const BATCH_CPU_SECONDS = 240;

const dir = mkdtempSync(join(tmpdir(), "toolwright-gguf-mutants-"));
let base: Buffer;
let fields: Field[] = [];
let kvRecords: { start: number; end: number }[] = [];
let headerEnd = 0;
let parsed: Awaited<ReturnType<typeof readGguf>>;
let tensors: GgufTensorSpec[] = [];

/** A length, count or type field of the header, found by walking it. */
interface Field {
  offset: number;
  size: 4 | 8;
  what: string;
}

/** Walks a GGUF v3 header, listing every length/count/type field and each key/value record. */
function walk(buf: Buffer): { fields: Field[]; kvRecords: { start: number; end: number }[]; end: number } {
  const out: Field[] = [
    { offset: 8, size: 8, what: "tensor count" },
    { offset: 16, size: 8, what: "key/value count" },
  ];
  const records: { start: number; end: number }[] = [];
  let p = 24;
  const str = (what: string) => {
    out.push({ offset: p, size: 8, what: `${what} length` });
    p += 8 + Number(buf.readBigUInt64LE(p));
  };
  const SCALAR = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];
  const value = (type: number, what: string) => {
    if (type === 8) return str(what);
    if (type === 9) {
      out.push({ offset: p, size: 4, what: `${what} item type` });
      const item = buf.readUInt32LE(p);
      out.push({ offset: p + 4, size: 8, what: `${what} item count` });
      const n = Number(buf.readBigUInt64LE(p + 4));
      p += 12;
      if (item === 8)
        for (let i = 0; i < n; i++) i < 3 ? str(`${what}[${i}]`) : (p += 8 + Number(buf.readBigUInt64LE(p)));
      else p += n * SCALAR[item]!;
      return;
    }
    p += SCALAR[type]!;
  };
  const nTensors = Number(buf.readBigUInt64LE(8));
  const nKv = Number(buf.readBigUInt64LE(16));
  for (let i = 0; i < nKv; i++) {
    const start = p;
    const key = buf.toString("latin1", p + 8, p + 8 + Number(buf.readBigUInt64LE(p)));
    str(`key ${key}`);
    out.push({ offset: p, size: 4, what: `${key} type` });
    const type = buf.readUInt32LE(p);
    p += 4;
    value(type, key);
    records.push({ start, end: p });
  }
  for (let i = 0; i < nTensors; i++) {
    const name = buf.toString("latin1", p + 8, p + 8 + Number(buf.readBigUInt64LE(p)));
    str(`tensor ${name} name`);
    out.push({ offset: p, size: 4, what: `${name} dimensions` });
    const dims = buf.readUInt32LE(p);
    p += 4;
    for (let d = 0; d < dims; d++, p += 8) out.push({ offset: p, size: 8, what: `${name} dim ${d}` });
    out.push({ offset: p, size: 4, what: `${name} type` });
    p += 4;
    out.push({ offset: p, size: 8, what: `${name} offset` });
    p += 8;
  }
  return { fields: out, kvRecords: records, end: p };
}

const HUGE = [0n, 1n, 0xffffffffn, 0x7fffffffn, 1n << 32n, 1n << 40n, 1n << 62n, (1n << 63n) - 1n, (1n << 64n) - 1n];
const ODD_VALUES: GgufValue[] = [
  gguf.uint32(0),
  gguf.uint32(0xffffffff),
  { type: "int32", value: -1 },
  gguf.string(""),
  gguf.string("x"),
  { type: "float32", value: Number.NaN },
  { type: "bool", value: true },
  gguf.stringArray([]),
  { type: "uint64", value: 1n << 62n },
  { type: "float64", value: -1e308 },
];
const TENSOR_TYPES = [
  GgmlType.F32,
  GgmlType.F16,
  GgmlType.BF16,
  GgmlType.Q4_0,
  GgmlType.Q8_0,
  GgmlType.Q4_K,
  GgmlType.I8,
  GgmlType.I16,
  GgmlType.I32,
  GgmlType.IQ4_NL,
];

/** Mutant `i` of the sweep, deterministic in SEED: [description, file bytes]. */
async function mutant(i: number): Promise<[string, Buffer]> {
  const rng = new Xoshiro128(SEED, `mutant-${i}`);
  const pick = <T>(xs: readonly T[]): T => xs[rng.nextU32() % xs.length]!;
  const kind = i % 6;
  if (kind === 0) {
    // byte flips inside the header
    const b = Buffer.from(base);
    const flips = 1 + (rng.nextU32() % 4);
    const at: number[] = [];
    for (let f = 0; f < flips; f++) {
      const o = rng.nextU32() % headerEnd;
      b[o]! ^= 1 << (rng.nextU32() % 8);
      at.push(o);
    }
    return [`byte flips at ${at.join(", ")}`, b];
  }
  if (kind === 1) {
    const cut = rng.nextU32() % 2 === 0 ? rng.nextU32() % (headerEnd + 64) : rng.nextU32() % base.length;
    return [`truncated to ${cut} bytes`, base.subarray(0, cut)];
  }
  if (kind === 2) {
    // a huge (or zero) count, length or type
    const b = Buffer.from(base);
    const f = pick(fields);
    const v = pick(HUGE);
    if (f.size === 8) b.writeBigUInt64LE(v, f.offset);
    else b.writeUInt32LE(Number(v & 0xffffffffn), f.offset);
    return [`${f.what} set to ${v}`, b];
  }
  if (kind === 3) {
    // a duplicated key/value record (the key count raised to match)
    const r = pick(kvRecords);
    const b = Buffer.concat([base.subarray(0, r.end), base.subarray(r.start, r.end), base.subarray(r.end)]);
    b.writeBigUInt64LE(b.readBigUInt64LE(16) + 1n, 16);
    return [`key/value record at ${r.start} duplicated`, b];
  }
  const path = join(dir, `semantic-${i}.gguf`);
  if (kind === 4) {
    // a metadata value of another type or an odd value
    const keys = [...parsed.metadata.keys()];
    const key = pick(keys);
    const value = pick(ODD_VALUES);
    const metadata = new Map(parsed.metadata);
    metadata.set(key, value);
    await writeGguf(path, { metadata, tensors });
    return [`${key} set to ${value.type} ${String(value.value).slice(0, 20)}`, await readFile(path)];
  }
  // a tensor stored in another type (data sized to match)
  const t = pick(tensors);
  const type = pick(TENSOR_TYPES);
  let bytes = 0;
  try {
    bytes = ggmlTensorBytes(type, t.shape);
  } catch {
    bytes = 0;
  }
  if (bytes === 0) return [`${t.name} kept (type ${type} cannot hold its shape)`, base];
  const changed = tensors.map((x) =>
    x === t ? { ...x, type, data: new Uint8Array(bytes).fill(rng.nextU32() & 0x3f) } : x,
  );
  await writeGguf(path, { metadata: parsed.metadata, tensors: changed });
  return [`${t.name} retyped to ${type}`, await readFile(path)];
}

beforeAll(async () => {
  const model = await ensureTestModel({ vocab: VOCAB });
  base = await readFile(model);
  ({ fields, kvRecords, end: headerEnd } = walk(base));
  parsed = await readGguf(model);
  tensors = [];
  for (const t of parsed.tensors)
    tensors.push({ name: t.name, shape: t.shape, type: t.type, data: await readTensorBytes(parsed, t) });
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe(`GGUF mutant sweep (seed ${SEED}, ${BATCHES * PER_BATCH} mutants)`, () => {
  for (let batch = 0; batch < BATCHES; batch++) {
    it(`mutants ${batch * PER_BATCH} to ${(batch + 1) * PER_BATCH - 1}: no crash, no hang`, async () => {
      const files: { path: string; what: string }[] = [];
      for (let i = batch * PER_BATCH; i < (batch + 1) * PER_BATCH; i++) {
        const [what, bytes] = await mutant(i);
        const path = join(dir, `mutant-${i}.gguf`);
        await writeFile(path, bytes);
        files.push({ path, what: `mutant ${i}: ${what}` });
      }
      const r = await isolated(
        `const files = ${JSON.stringify(files)};
        const outcomes = {};
        for (const f of files) {
          process.stderr.write("running " + f.what + "\\n");
          let outcome;
          try {
            const m = await lib.loadModel(f.path);
            try {
              const tokens = m.tokenize("hello 𝄞 world");
              m.detokenize(tokens);
              const c = await m.createContext({ contextSize: 256 });
              await c.decode(tokens);
              c.dispose();
              outcome = "ran";
            } finally {
              m.dispose();
            }
          } catch (e) {
            outcome = (e?.name ?? "?") + ":" + (e?.code ?? "");
          }
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        }
        const cpu = process.cpuUsage();
        return { outcomes, cpuSeconds: (cpu.user + cpu.system) / 1e6 };`,
        { timeoutMs: 300_000 },
      );
      for (const f of files) rmSync(f.path, { force: true });
      const last = r.stderr
        .split("\n")
        .filter((l) => l.startsWith("running "))
        .pop();
      expect(r.kind, `${r.kind} at ${last}\n${r.stderr.slice(-1500)}`).toBe("returned");
      const value = r.value as { outcomes: Record<string, number>; cpuSeconds: number };
      expect(value.cpuSeconds).toBeLessThan(BATCH_CPU_SECONDS);
      // Every error is a documented class: a ModelLoadError (or a ToolwrightError from tokenizing/decoding).
      for (const outcome of Object.keys(value.outcomes))
        expect(outcome).toMatch(/^(ran|ModelLoadError:|ToolwrightError:TOOLWRIGHT_|RangeError:)/);
    }, 400_000);
  }
});
