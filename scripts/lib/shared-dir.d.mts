export declare const SHARED_ENV: string;
export declare function sharedDir(): string;
export declare function sharedPath(sub: string): { path: string; missing: null } | { path: null; missing: string };
