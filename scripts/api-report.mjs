#!/usr/bin/env node
// The package's public API, one line per exported name per entry point of package.json "exports":
// `<entry> <name> <kind>`. Read with the TypeScript compiler from the src/ files the entries are
// built from, so types count as well as values, and lib/ need not be built.
//
//   node scripts/api-report.mjs           print the report
//   node scripts/api-report.mjs --write   write it to api-report.txt (npm run api-report)
//   node scripts/api-report.mjs --count   print the number of names per entry point
//
// test/unit/api-report.test.ts regenerates it and fails when it differs from api-report.txt.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the checked-in report lives. */
export const API_REPORT_FILE = join(ROOT, "api-report.txt");

/** Package entry points (`"."`, `"./chat"`, ...) and the src/ file each is compiled from. */
export function apiEntryPoints(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const entries = [];
  for (const [entry, target] of Object.entries(pkg.exports)) {
    const types = typeof target === "string" ? target : target.types;
    if (!types?.endsWith(".d.ts")) continue; // ./package.json
    const source = types.replace(/^\.\/lib\//, "src/").replace(/\.d\.ts$/, ".ts");
    entries.push({ entry, source: join(root, source) });
  }
  return entries;
}

const F = ts.SymbolFlags;
/**
 * The first matching flag names the kind; order matters (a class is also a value).
 * @type {[ts.SymbolFlags, string][]}
 */
const KINDS = [
  [F.Class, "class"],
  [F.Function, "function"],
  [F.Enum, "enum"],
  [F.Variable, "const"],
  [F.Interface, "interface"],
  [F.TypeAlias, "type"],
  [F.Module, "namespace"],
];

function resolved(checker, symbol) {
  return symbol.flags & F.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function kindOf(checker, symbol) {
  const target = resolved(checker, symbol);
  for (const [flag, name] of KINDS) if (target.flags & flag) return name;
  return "unknown";
}

/** Where a symbol is declared, as `path:name` relative to the root (tells two same-named things apart). */
function declarationOf(checker, symbol, root) {
  const target = resolved(checker, symbol);
  const file = target.declarations?.[0]?.getSourceFile().fileName;
  return `${file ? relative(root, file).split(sep).join("/") : "?"}:${target.name}`;
}

/** The source file a module specifier of `file` resolves to. */
function targetFile(program, checker, specifier) {
  const symbol = checker.getSymbolAtLocation(specifier);
  const decl = symbol?.declarations?.find(ts.isSourceFile);
  return decl && program.getSourceFile(decl.fileName);
}

/**
 * Whether `file` exports `name` only as a type (`export type { X }`, `export { type X }`,
 * `export type * from`), following re-exports. The checker's namespace type counts a class
 * re-exported by `export type *` as a value, so the export statements are read here.
 */
function isTypeOnlyExport(program, checker, file, name, depth = 0) {
  if (depth > 32) throw new Error(`api-report: re-export chain too deep at ${file.fileName}`);
  const stars = [];
  for (const statement of file.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    if (!clause) {
      stars.push(statement);
      continue;
    }
    if (ts.isNamespaceExport(clause)) {
      if (clause.name.text === name) return statement.isTypeOnly;
      continue;
    }
    for (const element of clause.elements) {
      if (element.name.text !== name) continue;
      if (statement.isTypeOnly || element.isTypeOnly) return true;
      const target = statement.moduleSpecifier && targetFile(program, checker, statement.moduleSpecifier);
      const local = (element.propertyName ?? element.name).text;
      return target ? isTypeOnlyExport(program, checker, target, local, depth + 1) : false;
    }
  }
  for (const statement of stars) {
    const target = targetFile(program, checker, statement.moduleSpecifier);
    const targetSymbol = target && checker.getSymbolAtLocation(target);
    if (!targetSymbol || !checker.getExportsOfModule(targetSymbol).some((s) => s.name === name)) continue;
    return statement.isTypeOnly || isTypeOnlyExport(program, checker, target, name, depth + 1);
  }
  return false; // declared here with `export`
}

/**
 * Every exported name of every entry point, sorted: `{ entry, name, kind, declaration }`. A value
 * exported with `export type` has its kind prefixed with `type-only `, since a user can name it only
 * as a type. `declaration` (`src/x.ts:name`) is where the name is declared; it is not in the report.
 */
export function apiReport(root = ROOT) {
  const entries = apiEntryPoints(root);
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  const program = ts.createProgram({
    rootNames: entries.map((e) => e.source),
    options: { ...config.options, noEmit: true },
  });
  const checker = program.getTypeChecker();
  const rows = [];
  for (const { entry, source } of entries) {
    const file = program.getSourceFile(source);
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!moduleSymbol) throw new Error(`api-report: ${entry}: no module at ${source}`);
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const kind = kindOf(checker, symbol);
      const isValueKind = ["class", "function", "enum", "const", "namespace"].includes(kind);
      const typeOnly = isValueKind && isTypeOnlyExport(program, checker, file, symbol.name);
      const declaration = declarationOf(checker, symbol, root);
      rows.push({ entry, name: symbol.name, kind: typeOnly ? `type-only ${kind}` : kind, declaration });
    }
  }
  const order = new Map(entries.map((e, i) => [e.entry, i]));
  return rows.sort((a, b) => order.get(a.entry) - order.get(b.entry) || byName(a, b));
}

function byName(a, b) {
  if (a.name === b.name) return 0;
  return a.name < b.name ? -1 : 1;
}

/** The report's text: a header, then one `entry name kind` line per exported name. */
export function formatApiReport(rows) {
  const lines = rows.map((r) => `${r.entry} ${r.name} ${r.kind}`);
  const header = [
    "# The public API: one line per exported name per package.json export (entry, name, kind).",
    "# Generated by `npm run api-report`; test/unit/api-report.test.ts checks it is current.",
    `# ${rows.length} names.`,
  ];
  return `${[...header, ...lines].join("\n")}\n`;
}

/** Names per entry point, and the total. */
export function countApiNames(rows) {
  const counts = new Map();
  for (const r of rows) counts.set(r.entry, (counts.get(r.entry) ?? 0) + 1);
  return { perEntry: counts, total: rows.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = apiReport();
  if (process.argv.includes("--count")) {
    const { perEntry, total } = countApiNames(rows);
    for (const [entry, n] of perEntry) console.log(`${String(n).padStart(4)}  ${entry}`);
    console.log(`${String(total).padStart(4)}  total`);
  } else if (process.argv.includes("--write")) {
    writeFileSync(API_REPORT_FILE, formatApiReport(rows));
    console.log(`api-report: ${rows.length} names written to ${API_REPORT_FILE}`);
  } else {
    process.stdout.write(formatApiReport(rows));
  }
}
