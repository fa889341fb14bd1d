import { absoluteUrl } from "../urls.ts";
import type { PaymentProvider } from "./types.ts";

/** Test mode: our own hosted checkout page with a Pay button; no money moves. */
export const testProvider: PaymentProvider = {
  name: "test",
  createSession: (req) => Promise.resolve({ url: absoluteUrl(`/checkout/${req.orderId}`), providerSessionId: null }),
};
