#!/usr/bin/env node
// Checks that our C++ (native/, scripts' C++ tools) is clang-formatted (.clang-format). llama.cpp's
// sources are never checked. `--fix` formats in place. Without clang-format on PATH it says so and
// exits 0 unless --require is given (CI installs it).
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIRS = ["native", "scripts/bench", "scripts/oracle", "scripts/gbnf-oracle", "fuzz/native", "fuzz/js"];
const fix = process.argv.includes("--fix");
const mustHave = process.argv.includes("--require");

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : files(p);
    return /\.(cc|cpp|h)$/.test(e.name) ? [p] : [];
  });
}

const probe = spawnSync("clang-format", ["--version"], { encoding: "utf8" });
if (probe.error) {
  console.log("lint-native: clang-format not found; C++ formatting not checked (apt-get install clang-format)");
  process.exit(mustHave ? 1 : 0);
}
const list = DIRS.flatMap((d) => files(join(ROOT, d)));
const args = fix ? ["-i", ...list] : ["--dry-run", "--Werror", ...list];
const r = spawnSync("clang-format", args, { encoding: "utf8" });
if (r.status !== 0) {
  process.stderr.write(r.stderr);
  console.error(`lint-native: C++ files are not clang-formatted; run \`npm run format\``);
  process.exit(1);
}
console.log(
  `lint-native: ${list.length} files ${fix ? "formatted" : "clang-formatted"} ` +
    `(${relative(ROOT, join(ROOT, ".clang-format"))})`,
);
