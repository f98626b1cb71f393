// Type-level tests of responseFormat: its schema may be JSON Schema or a schema library's object
// (zod, any Standard JSON Schema), as tool parameters may. Each `@ts-expect-error` line asserts an
// error; the test project fails if one does not occur.
import { type ChatOptions, loadModel, type ResponseFormat, type StandardSchemaLike } from "toolwright";
import * as z from "zod";

const answer = z.object({ answer: z.enum(["yes", "no"]), score: z.int().min(0).max(9) });

// The OpenAI shape, with a zod schema where the JSON Schema goes.
const zodFormat: ResponseFormat = {
  type: "json_schema",
  json_schema: { name: "answer", schema: answer, strict: true },
};
const zodObject: ResponseFormat = { type: "json_object", schema: answer };
const jsonFormat: ResponseFormat = {
  type: "json_schema",
  json_schema: { schema: { type: "object", properties: { answer: { type: "string" } } } },
};
const asStandard: StandardSchemaLike = answer;
void [zodObject, jsonFormat, asStandard];

// A Standard JSON Schema object from any library: the `~standard` interface is enough.
const library = {
  "~standard": { version: 1 as const, vendor: "mylib", jsonSchema: { input: () => ({ type: "object" }) } },
};
const libraryFormat: ResponseFormat = { type: "json_schema", json_schema: { schema: library } };
void libraryFormat;

// @ts-expect-error a number is not a schema
const numberSchema: ResponseFormat = { type: "json_schema", json_schema: { schema: 5 } };
// @ts-expect-error a string is not a schema
const stringSchema: ResponseFormat = { type: "json_object", schema: "object" };
// @ts-expect-error the schema is required for json_schema
const noSchema: ResponseFormat = { type: "json_schema", json_schema: { name: "x" } };
void [numberSchema, stringSchema, noSchema];

async function chatWithZod(): Promise<void> {
  const model = await loadModel("model.gguf");
  const options: ChatOptions = { messages: [{ role: "user", content: "Sunny?" }], responseFormat: zodFormat };
  await model.chat(options);
  await model.chat({
    messages: [{ role: "user", content: "Sunny?" }],
    responseFormat: { type: "json_schema", json_schema: { schema: answer } },
  });
  await model.streamChat({
    messages: [{ role: "user", content: "Sunny?" }],
    responseFormat: { type: "json_object", schema: answer },
  }).result;
}
void chatWithZod;
