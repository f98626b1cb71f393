/**
 * `toolwright chat --session FILE`: a conversation kept across runs. FILE holds the messages (JSON); FILE.kv the
 * session's KV cache (`ChatSession.save`), so a resumed chat does not evaluate the earlier turns again. Both are
 * written after every answer, so an interrupted chat loses nothing; a cache that cannot be restored (another model,
 * another `--context-size`) only costs the evaluation: the messages still resume.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { SavedStateError } from "../runtime/errors.js";
import type { ChatSession } from "../session/index.js";
import type { ChatMessage } from "../types.js";

const FORMAT = "toolwright-chat-session";
const VERSION = 1;

/** What a session file held, or undefined when there is none yet. */
export interface ResumedChat {
  messages: ChatMessage[];
  /** Why the cache was not restored (the messages are evaluated again), or undefined when it was. */
  cacheProblem: string | undefined;
}

/**
 * Reads FILE's messages and restores FILE.kv into `session`. Undefined when FILE does not exist; an Error naming
 * FILE when it is not a session file.
 *
 * @example
 * const resumed = await resumeChat("work.chat", session);
 */
export async function resumeChat(path: string, session: ChatSession): Promise<ResumedChat | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`--session ${path}: ${(e as Error).message}`);
  }
  let data: { format?: unknown; version?: unknown; messages?: unknown };
  try {
    data = JSON.parse(text, reviveBytes) as typeof data;
  } catch (e) {
    throw new Error(`--session ${path} is not a chat session file (not JSON: ${(e as Error).message})`);
  }
  if (data?.format !== FORMAT || data.version !== VERSION || !Array.isArray(data.messages))
    throw new Error(`--session ${path} is not a chat session file of this version (${FORMAT} ${VERSION})`);
  let cacheProblem: string | undefined;
  try {
    await session.restore(`${path}.kv`);
  } catch (e) {
    if (!(e instanceof SavedStateError)) throw e;
    cacheProblem = e.message;
  }
  return { messages: data.messages as ChatMessage[], cacheProblem };
}

/** An image's bytes come back as bytes (see {@link saveChat}). */
function reviveBytes(_key: string, value: unknown): unknown {
  const v = value as { type?: unknown; base64?: unknown } | null;
  if (v && typeof v === "object" && v.type === "bytes" && typeof v.base64 === "string" && Object.keys(v).length === 2)
    return new Uint8Array(Buffer.from(v.base64, "base64"));
  return value;
}

/**
 * Writes the messages to FILE and the session's cache to FILE.kv (each through a temporary file, so a crash
 * leaves the earlier version whole).
 *
 * @example
 * await saveChat("work.chat", session, messages);
 */
export async function saveChat(path: string, session: ChatSession, messages: readonly ChatMessage[]): Promise<void> {
  const body = JSON.stringify({ format: FORMAT, version: VERSION, messages }, (_key, value: unknown) =>
    value instanceof Uint8Array ? { type: "bytes", base64: Buffer.from(value).toString("base64") } : value,
  );
  await session.save(`${path}.kv`);
  await writeFile(`${path}.tmp`, `${body}\n`);
  await rename(`${path}.tmp`, path);
}
