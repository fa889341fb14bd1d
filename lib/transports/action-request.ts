import { AsyncLocalStorage } from "node:async_hooks";
import { AppError } from "../http/errors.ts";

/**
 * The request a server action answers, as the front door saw it: server.ts runs Next inside this store for a POST
 * carrying `Next-Action`, and an action that refuses its arguments records its problem here (badArguments in
 * lib/transports/action.ts). The front door then answers a 400 problem document instead of the 500 Next sends for a
 * thrown error. Kept on globalThis: the server's bundle and Next's each load their own copy of this module.
 */
interface ActionRequest {
  problem?: AppError;
}

const KEY = Symbol.for("indie-license-market.action-request");
const g = globalThis as unknown as Record<symbol, AsyncLocalStorage<ActionRequest> | undefined>;
export const actionRequest = (): AsyncLocalStorage<ActionRequest> => (g[KEY] ??= new AsyncLocalStorage<ActionRequest>());

/** Refuses arguments a browser could not have sent: 400 `invalid_action_arguments`, answered so by the front door. */
export function badArguments(detail: string): never {
  const problem = new AppError("invalid_action_arguments", 400, detail);
  const store = actionRequest().getStore();
  if (store) store.problem = problem;
  throw problem;
}
