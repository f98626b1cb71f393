/**
 * GGUF files: read header/metadata/tensor infos, write GGUF v3. Random-weight test models are
 * `toolwright/testing`'s.
 *
 * @example
 * import { readGgufMetadata, ggufString } from "toolwright/gguf";
 * const template = ggufString(await readGgufMetadata("model.gguf"), "tokenizer.chat_template");
 *
 * @module toolwright/gguf
 */
export { readGguf, readGgufMetadata } from "./reader.js";
export { writeGguf, type GgufTensorData, type GgufTensorSpec, type WriteGgufOptions } from "./writer.js";
export { GgufError, type GgufErrorCode } from "./errors.js";
export { GgmlType, type GgmlTypeId } from "./ggml-types.js";
export { gguf, ggufString, ggufNumber, ggufBool, ggufStringArray, ggufToJson } from "./values.js";
export { readTensorBytes } from "./tensor-data.js";
export type {
  GgufArray,
  GgufBigIntType,
  GgufFileInfo,
  GgufMetadata,
  GgufNumberType,
  GgufScalar,
  GgufTensorInfo,
  GgufTypedArrays,
  GgufValue,
  GgufValueType,
} from "./types.js";
