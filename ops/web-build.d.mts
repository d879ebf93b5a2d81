/** Types of ops/web-build.mjs (see there). */
export declare const ROOT: string;
export declare const WEB_DIST: string;
export declare function isWebStale(): boolean;
export declare function bundleWeb(
  outDir: string,
): Promise<{ script: string; style: string | null; files: string[] }>;
export declare function buildWeb(): Promise<void>;
export declare function ensureWebBuilt(): Promise<boolean>;
