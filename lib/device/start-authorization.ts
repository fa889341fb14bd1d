import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { absoluteUrl } from "../urls.ts";
import { formatUserCode, hashDeviceCode, newDeviceCode, newUserCode } from "./codes.ts";
import type { AuthorizeRequest, AuthorizeResult } from "./schemas.ts";

/** How long a request waits for the buyer, and the first pause between polls (RFC 8628's suggested 5 s). */
const DEVICE_REQUEST_TTL_SECONDS = 15 * 60;
const DEVICE_POLL_INTERVAL_SECONDS = 5;

const VERIFICATION_PATH = "/device";

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/**
 * An app asks to be licensed without a key: a device request for the listed product named by its plugin_id and the
 * machine the app runs on, with a fresh device code (returned once, stored hashed) and a user code unique among all
 * requests. A user code that happens to be taken is drawn again (a unique index decides, so two requests at once
 * cannot share one).
 */
export async function startDeviceAuthorization(input: AuthorizeRequest, client: string, now = new Date()): Promise<AuthorizeResult> {
  const db = getDb();
  const product = await db.product.findUnique({ where: { pluginId: input.plugin_id }, select: { id: true, status: true } });
  if (!product || product.status !== "active") throw notFound("product", "No listed product has this plugin_id.");
  const deviceCode = newDeviceCode();
  for (let attempt = 0; ; attempt++) {
    const userCode = newUserCode();
    try {
      await db.deviceAuthorization.create({
        data: {
          deviceCodeHash: hashDeviceCode(deviceCode),
          userCode,
          productId: product.id,
          machineFingerprint: input.machine_fingerprint,
          machineName: input.machine_name ?? null,
          platform: input.platform ?? null,
          appVersion: input.app_version ?? null,
          client,
          status: "pending",
          interval: DEVICE_POLL_INTERVAL_SECONDS,
          expiresAt: new Date(now.getTime() + DEVICE_REQUEST_TTL_SECONDS * 1000),
        },
      });
      const shown = formatUserCode(userCode);
      return {
        device_code: deviceCode,
        user_code: shown,
        verification_uri: absoluteUrl(VERIFICATION_PATH),
        verification_uri_complete: absoluteUrl(`${VERIFICATION_PATH}?user_code=${shown}`),
        expires_in: DEVICE_REQUEST_TTL_SECONDS,
        interval: DEVICE_POLL_INTERVAL_SECONDS,
        product_id: product.id,
      };
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 4) throw error;
    }
  }
}
