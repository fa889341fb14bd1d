import type { Operation } from "./define.ts";

export const ACP: Operation[] = [];
