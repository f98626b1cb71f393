/**
 * Runs scripts/test-install.mjs (pack, install into an empty folder, use) for the dist-install
 * tests, and what they compare its report with: the package's runtime dependency closure.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./test-models.js";

/** packages: the published layout (main tarball + platform package); prebuild: prebuilds/ in the main tarball. */
export type InstallMode = "packages" | "prebuild" | "source";

export interface InstallReport {
  ok: boolean;
  error?: string;
  mode: InstallMode;
  addonSource: string;
  installUsed: string;
  addonMapped: string | null;
  /** loadedAddon() in the app: the binary chosen and the candidates before it. */
  loaded: { path: string; variant: string; passedOver: { path: string; error: string }[] };
  buildToolsRemovedFromPath: string[];
  api: string;
  tokens: number;
  cliInspect: { architecture: string; vocabulary: number };
  tarballBytes: number;
  /** packages mode: the platform package's name, tarball size, files, and installed size. */
  platformPackage?: string;
  platformTarballBytes?: number;
  platformFiles?: string[];
  platformPackageBytes?: number;
  sourceMaps: number;
  sourceMapsWithoutSources: string[];
  installSeconds: number;
  packageFolders: string[];
  packageBytes: number;
  nodeModulesBytes: number;
  packages: string[];
  commonjs: {
    exports: Record<string, { required: string[]; imported: string[] }>;
    sameInstances: boolean;
    loadModel: string;
  };
  cacheBuildDir?: string;
  cacheBuildBytes?: number;
  llamaDir?: string;
  llamaBytes?: number;
}

/** Runs the install check in `mode` with the given model; returns its report and stderr. */
export function runInstallCheck(
  mode: InstallMode,
  model: string,
  env: NodeJS.ProcessEnv = process.env,
): { report: InstallReport; status: number | null; stderr: string } {
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, "scripts", "test-install.mjs"), "--no-build", "--mode", mode, "--model", model],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
      maxBuffer: 64 << 20,
      env,
    },
  );
  return { report: JSON.parse(r.stdout) as InstallReport, status: r.status, stderr: r.stderr };
}

/**
 * The packages an app gets with toolwright: itself and the closure of its `dependencies`, as the
 * repository's package-lock.json resolves them (nested copies found the way Node looks them up).
 */
export function runtimeDependencyClosure(): string[] {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
  };
  const seen = new Set<string>();
  const visit = (at: string, deps: Record<string, string> | undefined) => {
    for (const name of Object.keys(deps ?? {})) {
      let base = at;
      let path = `${base ? `${base}/` : ""}node_modules/${name}`;
      while (!(path in lock.packages) && base) {
        const cut = base.lastIndexOf("node_modules/");
        base = cut > 0 ? base.slice(0, cut - 1) : "";
        path = `${base ? `${base}/` : ""}node_modules/${name}`;
      }
      const entry = lock.packages[path];
      if (!entry) throw new Error(`package-lock.json has no ${name} (needed by ${at || "the root"})`);
      if (seen.has(path)) continue;
      seen.add(path);
      visit(path, { ...entry.dependencies, ...entry.optionalDependencies });
    }
  };
  visit("", lock.packages[""]!.dependencies);
  const names = [...seen].map((p) => p.slice(p.lastIndexOf("node_modules/") + "node_modules/".length));
  return [...new Set(["toolwright", ...names])].sort();
}

/** One line with what the install took, for the test output (the numbers docs/install.md quotes). */
export function installSummary(report: InstallReport): string {
  const mb = (bytes: number | undefined) => `${((bytes ?? 0) / 1e6).toFixed(1)} MB`;
  const platform =
    report.platformPackage === undefined
      ? ""
      : `; ${report.platformPackage}: tarball ${mb(report.platformTarballBytes)}, installed ` +
        `${mb(report.platformPackageBytes)}`;
  const cache =
    report.mode === "source"
      ? `; in the cache: build folder ${mb(report.cacheBuildBytes)}, llama.cpp clone ${mb(report.llamaBytes)}`
      : "";
  return (
    `[install, ${report.mode}] npm install ${report.installSeconds} s; node_modules/toolwright ` +
    `${mb(report.packageBytes)} (tarball ${mb(report.tarballBytes)})${platform}, node_modules ` +
    `${mb(report.nodeModulesBytes)} in ${report.packages?.length} packages${cache}`
  );
}
