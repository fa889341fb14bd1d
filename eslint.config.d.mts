// Types of eslint.config.mjs for the test that reads its layering rules (tests/unit/layers.test.ts).
import type { Linter } from "eslint";

declare const config: Linter.Config[];
export default config;
export declare const LAYER_ZONES: Array<{ target: string[]; from: string | string[]; message: string; except?: string[] }>;
