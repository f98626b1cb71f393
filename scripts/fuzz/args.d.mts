export interface FuzzArgs {
  minutes: number;
  targets: string[];
  list: boolean;
  repro: string | null;
  timeout: number;
  rssMb: number;
  help: boolean;
}
export declare const USAGE: string;
export declare function parseFuzzArgs(argv: string[]): FuzzArgs;
