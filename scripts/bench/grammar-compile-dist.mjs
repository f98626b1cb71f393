// bench:grammar --compile-only: the cold-compile distribution of our engine over many grammars,
// without masks (the tool's `compile` mode), so that every dev schema fits in a minute.
// "Compile" is what bench:grammar's compile columns time: parse + compile + matcher setup.
import { execFileSync } from "node:child_process";
import { basename, join } from "node:path";

const fmt = (us) => (us / 1000).toFixed(2);

/** Runs the tool's compile mode per vocabulary and prints the distribution as a table (ms). */
export function printCompileDistribution({ tool, root, dirs, source, count, vocabs, runs, json }) {
  for (const v of vocabs) {
    const vocab = join(root, "deps", "llama.cpp", "models", `ggml-vocab-${v.name}.gguf`);
    const stdout = execFileSync(tool, ["compile", "--vocab", vocab, "--runs", String(runs), ...dirs], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const r = JSON.parse(stdout.trim().split("\n").pop());
    if (json) {
      console.log(JSON.stringify({ vocab: v.name, source, count, ...r }));
      continue;
    }
    console.log(
      `\n${v.label} — cold compile of ${r.cases} grammars (${source}; ${count} prepared, ${r.failed} ` +
        `rejected), median of ${r.runs} run(s) each, no masks`,
    );
    const head = ["", "mean", "p50", "p99", "p99.9", "max"];
    const row = (name, s) => [name, fmt(s.mean), fmt(s.p50), fmt(s.p99), fmt(s.p999), fmt(s.max)];
    const rows = [head, row("wall (ms)", r.compile_us), row("thread CPU (ms)", r.compile_cpu_us)];
    const widths = head.map((_, i) => Math.max(...rows.map((x) => x[i].length)));
    for (const x of rows)
      console.log(x.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
    const verdict = r.compile_us.p99 <= 5000 ? "met" : "NOT MET";
    console.log(
      `target: compile p99 ≤ 5 ms (wall): ${fmt(r.compile_us.p99)} ms ${verdict}; took ${r.seconds.toFixed(1)} s`,
    );
    const slow = r.slowest
      .slice(0, 5)
      .map((s) => `${basename(s.grammar, ".gbnf")} ${fmt(s.cpu_us)} ms CPU (${Math.round(s.bytes / 1024)} KB)`);
    console.log(`slowest compiles: ${slow.join("; ")}`);
  }
}
