export declare const BUILD_TOOLS: string[];
export declare function satisfiesRange(version: string, range: string): boolean;
export declare function nestedNpmEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
export declare function wantedBuildTools(root?: string): Record<string, string>;
export interface BuildTools {
  cmakeJs: string;
  nodeAddonApiDir: string;
}
export declare function resolveBuildTools(from: string, wanted: Record<string, string>): BuildTools | undefined;
export declare function obtainBuildTools(root?: string): BuildTools & { source: string };
