export declare const API_REPORT_FILE: string;
export interface ApiEntryPoint {
  entry: string;
  source: string;
}
export interface ApiReportRow {
  entry: string;
  name: string;
  kind: string;
  declaration: string;
}
export declare function apiEntryPoints(root?: string): ApiEntryPoint[];
export declare function apiReport(root?: string): ApiReportRow[];
export declare function formatApiReport(rows: readonly ApiReportRow[]): string;
export declare function countApiNames(rows: readonly ApiReportRow[]): { perEntry: Map<string, number>; total: number };
