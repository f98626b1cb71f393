interface BaseTarget {
  name: string;
  what: string;
  maxLen: number;
}
export interface NativeTarget extends BaseTarget {
  kind: "native";
  harness: string;
  sources: string[];
  ggml: boolean;
  seeds: { dirs?: string[]; ext?: string; js?: string };
}
export interface JsTarget extends BaseTarget {
  kind: "js";
  module: string;
  sync: boolean;
}
export type FuzzTarget = NativeTarget | JsTarget;
export declare const TARGETS: FuzzTarget[];
export declare function findTarget(name: string): FuzzTarget | undefined;
