import type { Operation } from "./define.ts";

export const ACP_PAYMENTS: Operation[] = [];
