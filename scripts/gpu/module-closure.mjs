#!/usr/bin/env node
// Prints the node_modules folders of the named packages and of everything they depend on (dependencies,
// optional and peer dependencies that are installed), one per line: what scripts/gpu/pack.sh ships.
// Left out: packages only type checking or CSS tooling needs (@types/*, lightningcss), which no test loads.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SKIP = /^(@types\/|lightningcss)/;

/** The folder `name` resolves to from `from`, as Node's resolver walks up node_modules folders. */
function resolvePackage(name, from) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

const seen = new Set();
function visit(dir) {
  if (seen.has(dir)) return;
  seen.add(dir);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const names = Object.keys({
    ...manifest.dependencies,
    ...manifest.optionalDependencies,
    ...manifest.peerDependencies,
  });
  for (const name of names) {
    if (SKIP.test(name)) continue;
    const found = resolvePackage(name, dir);
    if (found) visit(found);
  }
}

for (const name of process.argv.slice(2)) {
  const found = resolvePackage(name, ROOT);
  if (!found) {
    process.stderr.write(`module-closure: ${name} is not installed (npm install)\n`);
    process.exit(1);
  }
  visit(found);
}
for (const dir of seen) console.log(relative(ROOT, dir));
