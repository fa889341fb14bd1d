import type { Operation } from "./define.ts";

/** The refunds operations (issue 13), each declared once; REST, MCP, OpenAPI and the manifest derive from them. */
export const REFUNDS: Operation[] = [];
