/**
 * `toolwright/server`: an OpenAI-compatible HTTP server over a loaded model, as `toolwright
 * serve` runs it.
 *
 * @example
 * import { loadModel } from "toolwright";
 * import { createServer } from "toolwright/server";
 * const server = createServer(await loadModel("model.gguf"));
 * const { url } = await server.listen({ port: 8080 });
 *
 * @module toolwright/server
 */
export { createServer, ToolwrightServer } from "./server.js";
export type { CloseOptions, ListenOptions, ServerOptions } from "./server.js";
export type { SlotBackend } from "./slots.js";
