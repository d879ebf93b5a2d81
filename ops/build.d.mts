/** Types of ops/build.mjs (see there). */
export declare const ROOT: string;
export declare const DIST: string;
export declare const STEPS: Array<(outDir: string) => Promise<void>>;
export declare function isStale(): boolean;
export declare function build(): Promise<void>;
export declare function ensureBuilt(): Promise<boolean>;
