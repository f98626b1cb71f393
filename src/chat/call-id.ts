/**
 * Ids for tool calls the model wrote none for. Nine letters and digits: unique enough for a
 * conversation and the exact shape Mistral templates insist on when the id is sent back.
 */
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A fresh random call id (9 characters from [A-Za-z0-9]).
 *
 * @example
 * randomCallId(); // "k3X9aQ0zT"
 */
export function randomCallId(): string {
  const bytes = new Uint8Array(9);
  globalThis.crypto.getRandomValues(bytes);
  let id = "";
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length];
  return id;
}
