// Types of scripts/server-bundle.mjs (plain JavaScript, since `npm start` runs it on node without a loader).
export declare const SERVER_BUNDLE: string;
export declare function bundleServer(): void;
export declare const SERVER_HEAP_FLAGS: readonly string[];
export declare function serverNodeArgs(nodeOptions?: string, bundle?: string): string[];
