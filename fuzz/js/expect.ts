// What a fuzz target may see thrown. Errors of the classes the code under test documents are
// expected outcomes of hostile input; anything else (a TypeError from inside, a RangeError from a
// stack overflow) is rethrown, and the fuzzer records the input as a finding.

type ErrorClass = abstract new (...args: any[]) => Error;

/** Returns when `e` is an instance of one of `expected`; rethrows it otherwise. */
export function expectOnly(e: unknown, expected: readonly ErrorClass[]): void {
  if (expected.some((c) => e instanceof c)) return;
  throw e;
}

/** A finding that is not an exception: an invariant the code promises did not hold. */
export class InvariantBroken extends Error {
  override name = "InvariantBroken";
}

/** A small seeded generator (xorshift32), so a finding replays from its input alone. */
export function seeded(seed: number): () => number {
  let x = seed | 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}
