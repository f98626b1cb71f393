/**
 * The `--flash-attention on|off|auto` flag `toolwright chat` and `toolwright serve` share (llama-server's
 * `--flash-attn`), as the context option `flashAttention`.
 *
 * @example
 * flashAttentionOf("off"); // false
 */
import { type OptionTable, UsageError } from "./args.js";

/** The row of a command's option table. */
export const FLASH_ATTENTION_OPTION: OptionTable = {
  "flash-attention": {
    type: "string",
    value: "MODE",
    help: "on, off or auto (default: llama.cpp's choice, on for the CPU; llama-server's --flash-attn)",
  },
};

/** The context option for the flag's text: undefined for auto (or no flag); a usage error for another word. */
export function flashAttentionOf(text: string | undefined): boolean | undefined {
  if (text === undefined || text === "auto") return undefined;
  if (text === "on" || text === "off") return text === "on";
  throw new UsageError(`--flash-attention must be on, off or auto, got ${JSON.stringify(text)}`);
}
