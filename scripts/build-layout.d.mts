export declare const PACKAGE_ROOT: string;
export declare const PREFERRED_MARKER: string;
export declare function cacheRoot(env?: NodeJS.ProcessEnv): string;
export declare function isCheckout(root?: string): boolean;
export interface BuildLayout {
  kind: "checkout" | "installed";
  cache: string;
  llamaDir: string;
  buildDir: string;
  addonDir: string;
}
export declare function buildLayout(root?: string, env?: NodeJS.ProcessEnv): BuildLayout;
