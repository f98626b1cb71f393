export declare function markdownTable(header: string[], rows: string[][]): string;
export declare function machine(env: string): { card?: string; cuda?: string; date?: string; cores?: string };
export interface TestSummary {
  finished: boolean;
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
}
export declare function testSummary(text: string): TestSummary;
export declare function runtimeTable(
  text: string,
): { setup: string | undefined; header: string[]; rows: string[][] } | undefined;
export declare function chatTables(
  text: string,
): { size: string; setup: string; header: string[] | undefined; rows: string[][] }[];
export declare function serveRows(text: string): { rows: string[][]; scaling: string[] };
export declare function gpuTables(...dirs: string[]): string;
