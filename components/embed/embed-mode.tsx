import { trustedEmbedOrigin } from "@/lib/embed/framing";
import { embedParamOf } from "@/lib/urls";
import { EmbedBridge, type EmbedMessage } from "./embed-bridge";
import { EmbedChrome } from "./embed-chrome";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/**
 * The origin a checkout page was opened for by the buy button's overlay (`?embed=<origin>`), when the product's
 * seller verified it (or it is our own, the dashboard's preview); null outside the overlay or for any other origin.
 */
export async function embedOriginOf(searchParams: SearchParams | undefined, productId: string): Promise<string | null> {
  const raw = searchParams ? (await searchParams).embed : undefined;
  const origin = embedParamOf(typeof raw === "string" ? raw : null);
  return origin ? trustedEmbedOrigin(origin, { productId }) : null;
}

/** A checkout page in the overlay: the checkout alone, Escape passed on, and the outcome posted to the framing page. */
export function EmbedMode({ origin, message }: { origin: string | null; message?: EmbedMessage }) {
  if (!origin) return null;
  return (
    <>
      <EmbedChrome />
      <EmbedBridge origin={origin} {...(message ? { message } : {})} />
    </>
  );
}
