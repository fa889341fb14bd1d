import type { Operation } from "./define.ts";

export const AGENT_PLATFORMS: Operation[] = [];
