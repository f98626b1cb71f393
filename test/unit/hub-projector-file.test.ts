// Which projector ("mmproj") file of a repository goes with a model file: llama.cpp's -hf rule (the model's folder
// or one above it, the deepest first, then the closest quantization).
import { describe, expect, test } from "vitest";
import { pickProjectorFile } from "../../src/runtime/hub/model-ref.js";

const CASES: { name: string; paths: string[]; model: string; expected: string | undefined }[] = [
  {
    name: "the closest quantization to the model's",
    paths: ["m-Q4_K_M.gguf", "mmproj-f16.gguf", "mmproj-Q8_0.gguf"],
    model: "m-Q4_K_M.gguf",
    expected: "mmproj-Q8_0.gguf",
  },
  {
    name: "f16 beside a 16-bit model",
    paths: ["m-BF16.gguf", "mmproj-model-f16.gguf", "mmproj-model-Q8_0.gguf"],
    model: "m-BF16.gguf",
    expected: "mmproj-model-f16.gguf",
  },
  {
    name: "the model's own folder before the root",
    paths: ["mmproj-Q8_0.gguf", "Q4/m-Q4_K_M.gguf", "Q4/mmproj-f16.gguf"],
    model: "Q4/m-Q4_K_M.gguf",
    expected: "Q4/mmproj-f16.gguf",
  },
  {
    name: "not one in another folder",
    paths: ["Q8/mmproj-Q8_0.gguf", "Q4/m-Q4_K_M.gguf"],
    model: "Q4/m-Q4_K_M.gguf",
    expected: undefined,
  },
  {
    name: "none in the repository",
    paths: ["m-Q4_K_M.gguf", "imatrix.gguf"],
    model: "m-Q4_K_M.gguf",
    expected: undefined,
  },
  {
    name: "a split model's quantization",
    paths: ["m-Q8_0-00001-of-00002.gguf", "mmproj-F16.gguf", "mmproj-Q8_0.gguf"],
    model: "m-Q8_0-00001-of-00002.gguf",
    expected: "mmproj-Q8_0.gguf",
  },
  {
    name: "MMPROJ in capitals, not .gguf ignored",
    paths: ["MMPROJ-f16.gguf", "mmproj.bin"],
    model: "m.gguf",
    expected: "MMPROJ-f16.gguf",
  },
];

describe("pickProjectorFile", () => {
  test.each(CASES)("$name", ({ paths, model, expected }) => {
    expect(pickProjectorFile(paths, model)).toBe(expected);
  });
});
