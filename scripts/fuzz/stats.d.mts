export interface FuzzStats {
  execs: number;
  cov: number;
  ft: number;
  crashes: string[];
  timeouts: string[];
  ooms: string[];
}
export declare function parseLibFuzzerOutput(text: string): FuzzStats;
export declare function addStats(total: FuzzStats, run: FuzzStats): void;
export declare function formatTable(rows: { name: string; stats: FuzzStats; minutes: number; runs: number }[]): string;
