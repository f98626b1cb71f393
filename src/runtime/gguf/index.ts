/**
 * GGUF files: read header/metadata/tensor infos, write GGUF v3, generate random-weight test models.
 *
 * @example
 * import { readGgufMetadata, ggufString } from "toolwright/gguf";
 * const template = ggufString(await readGgufMetadata("model.gguf"), "tokenizer.chat_template");
 */
export { readGguf, readGgufMetadata } from "./reader.js";
export { writeGguf, type GgufTensorData, type GgufTensorSpec, type WriteGgufOptions } from "./writer.js";
export { GgufError, type GgufErrorCode } from "./errors.js";
export { GgmlType, ggmlTypeTraits, ggmlTensorBytes, type GgmlTypeId, type GgmlTypeTraits } from "./ggml-types.js";
export { encodeValues, decodeValues, f32ToF16Bits, f16BitsToF32 } from "./codec.js";
export { gguf, ggufString, ggufNumber, ggufBool, ggufStringArray, ggufToJson } from "./values.js";
export { readTensorBytes } from "./tensor-data.js";
export {
  createTestModel,
  TEST_MODEL_PRESETS,
  type CreateTestModelOptions,
  type TestModelArch,
  type TestModelInfo,
  type TestModelProgress,
} from "./test-model.js";
export type * from "./types.js";
