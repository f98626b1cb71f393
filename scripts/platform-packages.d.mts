export interface AddonVariantRow {
  name: string;
  backend: string | null;
  defaultOn: string[];
  needs: string;
}
export interface PlatformManifest {
  name: string;
  version: string;
  description: string;
  license: string;
  os: string[];
  cpu: string[];
  libc?: string[];
  files: string[];
  repository?: unknown;
}
export interface MadePackage {
  name: string;
  folder: string;
  dir: string;
  files: string[];
}
export interface MainManifest {
  name: string;
  version: string;
  license?: string;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}
export declare function parseFolder(folder: string): { platform: string; arch: string; variant: AddonVariantRow };
export declare function platformManifest(
  folder: string,
  files: readonly string[],
  main: MainManifest,
): PlatformManifest;
export declare function makePlatformPackages(options: {
  prebuilds: string;
  out: string;
  main: MainManifest;
}): MadePackage[];
export declare function withOptionalDependencies<T extends MainManifest>(main: T, made: readonly MadePackage[]): T;
