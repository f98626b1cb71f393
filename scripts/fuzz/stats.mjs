// Reads libFuzzer's output (the native harnesses' and Jazzer.js's, which is libFuzzer too): how many
// inputs ran, the coverage and features reached, and the findings it wrote.

/**
 * @typedef {{ execs: number, cov: number, ft: number,
 *   crashes: string[], timeouts: string[], ooms: string[] }} FuzzStats
 */

const KINDS = /** @type {const} */ ([
  ["crash-", "crashes"],
  ["leak-", "crashes"],
  ["timeout-", "timeouts"],
  ["oom-", "ooms"],
]);

/**
 * Parses one libFuzzer run's output.
 * @param {string} text
 * @returns {FuzzStats}
 */
export function parseLibFuzzerOutput(text) {
  /** @type {FuzzStats} */
  const stats = { execs: 0, cov: 0, ft: 0, crashes: [], timeouts: [], ooms: [] };
  let finalExecs = -1;
  for (const line of text.split("\n")) {
    const progress = /^#(\d+)\s+\S+\s+(?:cov: (\d+) )?ft: (\d+)/.exec(line);
    if (progress) {
      stats.execs = Math.max(stats.execs, Number(progress[1]));
      if (progress[2] !== undefined) stats.cov = Math.max(stats.cov, Number(progress[2]));
      stats.ft = Math.max(stats.ft, Number(progress[3]));
    }
    const units = /^stat::number_of_executed_units: (\d+)/.exec(line);
    if (units) finalExecs = Number(units[1]);
    const written = /Test unit written to (\S+)/.exec(line);
    if (written) {
      const path = written[1];
      const base = path.slice(path.lastIndexOf("/") + 1);
      const kind = KINDS.find(([prefix]) => base.startsWith(prefix));
      if (kind && !stats[kind[1]].includes(path)) stats[kind[1]].push(path);
    }
  }
  if (finalExecs >= 0) stats.execs = Math.max(stats.execs, finalExecs);
  return stats;
}

/**
 * Adds one run's stats to a target's total (executions add up; coverage is the most reached).
 * @param {FuzzStats} total
 * @param {FuzzStats} run
 */
export function addStats(total, run) {
  total.execs += run.execs;
  total.cov = Math.max(total.cov, run.cov);
  total.ft = Math.max(total.ft, run.ft);
  for (const k of /** @type {const} */ (["crashes", "timeouts", "ooms"]))
    for (const p of run[k]) if (!total[k].includes(p)) total[k].push(p);
}

/**
 * The summary table, one row per target.
 * @param {{ name: string, stats: FuzzStats, minutes: number, runs: number }[]} rows
 */
export function formatTable(rows) {
  const head = ["target", "minutes", "runs", "executions", "cov", "ft", "crashes", "timeouts", "ooms"];
  const body = rows.map((r) => [
    r.name,
    r.minutes.toFixed(1),
    String(r.runs),
    String(r.stats.execs),
    String(r.stats.cov),
    String(r.stats.ft),
    String(r.stats.crashes.length),
    String(r.stats.timeouts.length),
    String(r.stats.ooms.length),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}
