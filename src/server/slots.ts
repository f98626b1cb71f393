/**
 * llama-server's slot persistence: `POST /slots/{id}?action=save|restore` with `{ "filename": … }` writes a
 * sequence's KV cache into the server's slot folder or reads it back (toolwright's saved-state format: a file from
 * another model or a damaged one is a clear 400). Off unless the server was given a folder (`slotSavePath`,
 * `toolwright serve --slot-save-path DIR`), as in llama-server.
 */
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { ChatCompletionError } from "../openai/index.js";
import { ToolwrightError } from "../errors.js";
import { readJsonBody, sendJson } from "./http-io.js";

/**
 * What the slot routes need of the backend (`createServer`'s model): one sequence's cache to a file and back.
 *
 * @example
 * import type { SlotBackend } from "toolwright/server";
 * const slots: SlotBackend = {
 *   slots: 4,
 *   saveSlot: async (slot, path) => ({ tokens: (await session.save(path, { sequence: slot })).tokens.length }),
 *   restoreSlot: async (slot, path) => ({ tokens: (await session.restore(path, { sequence: slot })).tokens.length }),
 * };
 */
export interface SlotBackend {
  /** The number of slots (the context's sequences). */
  readonly slots: number;
  saveSlot(slot: number, path: string): Promise<{ tokens: number }>;
  restoreSlot(slot: number, path: string): Promise<{ tokens: number }>;
}

const invalid = (param: string, message: string) =>
  new ChatCompletionError(message, { status: 400, param, openaiCode: "invalid_value" });

/** The slot of `/slots/{id}`, or undefined when `path` is not a slot route. */
export function slotOfPath(path: string): string | undefined {
  return /^\/slots\/([^/]+)$/.exec(path)?.[1];
}

/**
 * Answers `POST /slots/{id}?action=save|restore`: llama-server's response shapes (`id_slot`, `filename`,
 * `n_saved`/`n_restored`, `n_written`/`n_read`, `timings`).
 */
export async function handleSlot(
  req: IncomingMessage,
  res: ServerResponse,
  options: { id: string; url: URL; folder: string | undefined; backend: Partial<SlotBackend>; maxBodyBytes: number },
): Promise<void> {
  const { backend, folder } = options;
  if (folder === undefined || backend.saveSlot === undefined || backend.restoreSlot === undefined)
    throw new ChatCompletionError("Slot save and restore are off: start the server with --slot-save-path DIR.", {
      status: 501,
      type: "not_supported_error",
      code: "TOOLWRIGHT_INVALID_REQUEST",
    });
  const slot = Number(options.id);
  const slots = backend.slots ?? 1;
  if (!/^\d+$/.test(options.id) || slot >= slots)
    throw invalid("id_slot", `Invalid slot ${JSON.stringify(options.id)}: this server has slots 0 to ${slots - 1}.`);
  const action = options.url.searchParams.get("action");
  if (action !== "save" && action !== "restore")
    throw invalid("action", `Invalid action ${JSON.stringify(action)}: expected ?action=save or ?action=restore.`);
  const body = (await readJsonBody(req, options.maxBodyBytes)) as { filename?: unknown } | null;
  const filename = body?.filename;
  if (typeof filename !== "string" || !/^[\w][\w.-]*$/.test(filename) || filename.length > 200)
    throw invalid("filename", "Invalid 'filename': a file name (letters, digits, '_', '-', '.'; no folders).");
  const path = join(folder, filename);
  const started = performance.now();
  try {
    const save = action === "save";
    const { tokens } = await (save ? backend.saveSlot(slot, path) : backend.restoreSlot(slot, path));
    const bytes = (await stat(path)).size;
    const ms = performance.now() - started;
    // llama-server's names: n_saved / n_written / save_ms, n_restored / n_read / restore_ms.
    const counts = save ? { n_saved: tokens, n_written: bytes } : { n_restored: tokens, n_read: bytes };
    return sendJson(res, 200, { id_slot: slot, filename, ...counts, timings: { [`${action}_ms`]: ms } });
  } catch (e) {
    if (e instanceof ToolwrightError && /^(ENOENT|TOOLWRIGHT_STATE_|TOOLWRIGHT_CONTEXT_BUSY)/.test(e.code))
      throw new ChatCompletionError(e.message, {
        status: 400,
        param: "filename",
        openaiCode: "invalid_value",
        cause: e,
      });
    if (e instanceof RangeError) throw invalid("id_slot", e.message);
    throw e;
  }
}
