/**
 * Random-weight LoRA adapters for a generated test model, in llama.cpp's adapter GGUF format:
 * general.type "adapter", adapter.type "lora", adapter.lora.alpha, and for each target weight
 * `<name>.lora_a` (shape [in, rank]) and `<name>.lora_b` (shape [rank, out]).
 */
import { GgmlType } from "../../src/runtime/gguf/ggml-types.js";
import { Xoshiro128 } from "../../src/runtime/gguf/random.js";
import { readGguf } from "../../src/runtime/gguf/reader.js";
import { gguf } from "../../src/runtime/gguf/values.js";
import { writeGguf, type GgufTensorSpec } from "../../src/runtime/gguf/writer.js";

export interface LoraAdapterOptions {
  /** Base weights the adapter changes (default: every attention and feed-forward matrix). */
  targets?: (name: string) => boolean;
  rank?: number;
  alpha?: number;
  seed?: number;
  /** Values of A and B are uniform in [-amplitude, amplitude) (default 0.5: a visible change). */
  amplitude?: number;
  /** general.architecture to write (default the model's: another one makes llama.cpp refuse it). */
  architecture?: string;
  /** Shape of lora_b's output dimension, when given: a wrong one makes llama.cpp refuse the adapter. */
  outputSize?: number;
}

const ADAPTED = /^blk\.\d+\.(attn_q|attn_k|attn_v|attn_output|ffn_gate|ffn_up|ffn_down)\.weight$/;

/**
 * Writes a LoRA adapter for the model at `modelPath` to `outPath`.
 *
 * @example
 * await writeLoraAdapter(await ensureTestModel({ vocab: "llama-spm" }), "adapter.gguf", { seed: 2 });
 */
export async function writeLoraAdapter(
  modelPath: string,
  outPath: string,
  options: LoraAdapterOptions = {},
): Promise<void> {
  const { rank = 4, alpha = 4, seed = 1, amplitude = 0.5 } = options;
  const targets = options.targets ?? ((name: string) => ADAPTED.test(name));
  const model = await readGguf(modelPath);
  const architecture = options.architecture ?? String(model.metadata.get("general.architecture")?.value);
  const tensors: GgufTensorSpec[] = [];
  for (const t of model.tensors) {
    if (!targets(t.name)) continue;
    const [inputs, outputs] = [t.shape[0]!, options.outputSize ?? t.shape[1]!];
    const random = (name: string, length: number): Float32Array => {
      const values = new Float32Array(length);
      new Xoshiro128(seed, name).fillUniform(values, amplitude);
      return values;
    };
    const base = t.name.slice(0, -".weight".length);
    tensors.push(
      {
        name: `${base}.weight.lora_a`,
        shape: [inputs, rank],
        type: GgmlType.F32,
        data: random(`${base}.a`, inputs * rank),
      },
      {
        name: `${base}.weight.lora_b`,
        shape: [rank, outputs],
        type: GgmlType.F32,
        data: random(`${base}.b`, rank * outputs),
      },
    );
  }
  await writeGguf(outPath, {
    metadata: [
      ["general.architecture", gguf.string(architecture)],
      ["general.type", gguf.string("adapter")],
      ["adapter.type", gguf.string("lora")],
      ["adapter.lora.alpha", gguf.float32(alpha)],
    ],
    tensors,
  });
}
