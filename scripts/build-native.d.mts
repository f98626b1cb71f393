/** The `--CD<option>=<value>` arguments for cmake-js that the build's environment variables ask for. */
export declare function cmakeDefines(env?: NodeJS.ProcessEnv): string[];
