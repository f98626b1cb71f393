import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { RELAXATIONS, RESTRICTION_KINDS } from "../../src/grammar/schema/schema-error.js";

// docs/json-schema.md shows RELAXATIONS as its one table of approximations: they must agree.
test("the relaxation table in docs/json-schema.md is RELAXATIONS", () => {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/json-schema.md"), "utf8");
  const rows = [...doc.matchAll(/^\| `(\w+)` \| (accepts|rejects) \| (.*) \|$/gm)].map((m) => [
    m[1],
    m[2],
    m[3]!.replace(/\\\|/g, "|"),
  ]);
  const expected = Object.entries(RELAXATIONS).map(([k, v]) => [
    k,
    RESTRICTION_KINDS.has(k as never) ? "rejects" : "accepts",
    v,
  ]);
  expect(rows).toEqual(expected);
});
