import type { Operation } from "./define.ts";

/** The admin operations (issue 13), each declared once; REST, MCP, OpenAPI and the manifest derive from them. */
export const ADMIN: Operation[] = [];
