/**
 * Argument checks for the public API of every layer: each throws a TypeError or RangeError that
 * names the option and shows what was given. The lowest folder of src/ (it imports nothing), so a
 * layer that only checks its options need not depend on the runtime.
 */

/** Short description of a value for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case "number":
    case "bigint":
    case "boolean":
      return String(value);
    case "undefined":
      return "undefined";
    case "function":
      return "a function";
    default:
      return typeof value === "object" ? "an object" : typeof value;
  }
}

/**
 * Whether `value` is a plain object (not null, not an array): a JSON object, a schema, an options bag.
 *
 * @example
 * isPlainObject({ type: "object" }); // true
 * isPlainObject([1]); // false
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function checkObject(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new TypeError(`${name} must be an object, got ${describe(value)}`);
  return value;
}

export function checkString(value: unknown, name: string): string {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string, got ${describe(value)}`);
  return value;
}

export function optBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new TypeError(`${name} must be a boolean, got ${describe(value)}`);
  return value;
}

export function optFunction<T extends (...args: never[]) => unknown>(value: unknown, name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw new TypeError(`${name} must be a function, got ${describe(value)}`);
  return value as T;
}

export function optInteger(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number") throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

export function optNumber(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number") throw new TypeError(`${name} must be a number, got ${describe(value)}`);
  if (!(value >= min && value <= max)) {
    throw new RangeError(`${name} must be a number in [${min}, ${max}], got ${describe(value)}`);
  }
  return value;
}

export function optSignal(value: unknown, name: string): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (!(value instanceof AbortSignal)) throw new TypeError(`${name} must be an AbortSignal, got ${describe(value)}`);
  return value;
}

export function optStringArray(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new TypeError(`${name} must be an array of strings, got ${describe(value)}`);
  value.forEach((item, i) => {
    if (typeof item !== "string") throw new TypeError(`${name}[${i}] must be a string, got ${describe(item)}`);
  });
  return value as string[];
}

/** Token ids: integers in [0, vocabSize). Returns an Int32Array (copied when needed). */
export function checkTokens(value: unknown, name: string, vocabSize: number): Int32Array {
  let tokens: Int32Array;
  if (value instanceof Int32Array) tokens = value;
  else if (value instanceof Uint32Array || Array.isArray(value)) tokens = Int32Array.from(value as ArrayLike<number>);
  else throw new TypeError(`${name} must be an array of token ids or an Int32Array, got ${describe(value)}`);
  const source = value as ArrayLike<unknown>;
  for (let i = 0; i < source.length; i++) {
    const t = source[i];
    if (typeof t !== "number" || !Number.isInteger(t) || t < 0 || t >= vocabSize) {
      throw new RangeError(`${name}[${i}] must be a token id in [0, ${vocabSize}), got ${describe(t)}`);
    }
  }
  return tokens;
}

/**
 * Levenshtein distance with adjacent transpositions (optimal string alignment), for "did you
 * mean" hints.
 *
 * @example
 * editDistance("maxToken", "maxTokens"); // 1
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}

/** The known name closest to `word` (case and `_`/`-` ignored), when it is close enough to be a typo. */
export function closestName(word: string, known: Iterable<string>): string | undefined {
  const norm = (s: string) => s.toLowerCase().replace(/[_-]/g, "");
  const w = norm(word);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const distance = editDistance(w, norm(k));
    if (distance < bestDistance) {
      best = k;
      bestDistance = distance;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(w.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/**
 * Rejects keys of an options object the API does not know, with a "did you mean" hint. `name`
 * is the object as the message names it ("loadModel: options").
 *
 * @example
 * checkKeys({ maxToken: 8 }, ["maxTokens", "stop"], "generate: options");
 * // TypeError: generate: options has an unknown key "maxToken" (did you mean "maxTokens"?)
 */
export function checkKeys(value: Record<string, unknown>, known: Iterable<string>, name: string): void {
  const names = [...known];
  for (const key of Object.keys(value)) {
    if (names.includes(key)) continue;
    const hint = closestName(key, names);
    throw new TypeError(
      `${name} has an unknown key ${JSON.stringify(key)} ` +
        `(${hint ? `did you mean ${JSON.stringify(hint)}?` : `known keys: ${names.join(", ")}`})`,
    );
  }
}

/** One option of an options table: its check, given a value that is not undefined. */
export interface OptionRow<T = unknown> {
  /** Checks a given value; throws a TypeError or RangeError naming `name` and what was given. */
  check(value: unknown, name: string): T;
  /** Checked even when not given (its check says what is missing). */
  required?: boolean;
}

/** The checked values of an options object (those given), typed by its table. */
export type CheckedOptions<Table> = {
  -readonly [K in keyof Table]?: Table[K] extends OptionRow<infer T> ? T : never;
};

/**
 * Checks an options object against its table: unknown keys are rejected (with a hint), then each
 * given option is checked by its row, in the table's order. `name` is the object as messages
 * name it ("chat: options"); an option is named `name.key`.
 *
 * @example
 * checkOptionTable({ stop: 1 }, { stop: { check: (v, n) => optStringArray(v, n) } }, "generate: options");
 * // TypeError: generate: options.stop must be an array of strings, got 1
 */
export function checkOptionTable<Table extends Readonly<Record<string, OptionRow>>>(
  value: Record<string, unknown>,
  table: Table,
  name: string,
): CheckedOptions<Table> {
  checkKeys(value, Object.keys(table), name);
  const checked: Record<string, unknown> = {};
  for (const [key, row] of Object.entries(table)) {
    if (value[key] !== undefined || row.required) checked[key] = row.check(value[key], `${name}.${key}`);
  }
  return checked as CheckedOptions<Table>;
}
