import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import next from "next";
import { dbEngine, disconnectDb } from "./lib/db.ts";
import { prepareDatabase } from "./lib/db/prepare.ts";
import { env, freezeLiveSettings } from "./lib/env.ts";
import { frontDoor } from "./lib/transports/front.ts";
import { hostPolicy } from "./lib/http/host.ts";
import { builtConfig } from "./lib/server/built-config.ts";
import { heapRoomAdvice } from "./lib/server/heap-room.ts";
import { servePageFromCache } from "./lib/transports/page-cache.ts";
import { missingPageRewrite } from "./lib/transports/page-guards.ts";
import { trustedProxies } from "./lib/http/proxy.ts";
import { flushValidations } from "./lib/licensing/validation-log.ts";
import { startOutbox } from "./lib/email/deliver-emails.ts";
import { startSubscriptionJobs } from "./lib/subscriptions/renewals.ts";
import { startSaleDigests } from "./lib/seller-mail/sale-emails.ts";
import { startWebhookOutbox } from "./lib/webhooks/deliver.ts";
import { startUploadSweep } from "./lib/selling/uploads.ts";
import { startArtifactSweep } from "./lib/releases/ingest.ts";
import { startRefundSweep } from "./lib/refunds/resume-refunds.ts";
import { startRateLimitSync } from "./lib/http/rate-limit-sync.ts";
import { paymentModeSummary } from "./lib/payments/provider.ts";
import { mailSummary } from "./lib/email/dev-mailbox.ts";
import { checkStorageSettings } from "./lib/storage/index.ts";

/**
 * The process. A plain node:http server answers the licensing hot path and /health itself (see lib/transports/lean.ts)
 * and hands every other request to Next.js. `npm run dev` and `npm start` both run this file.
 */
// Nothing may call home: this service runs on machines without internet access.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
// On Node 20 the AWS SDK (S3 storage) warns at its first client that versions after January 2027 need Node 22: a
// notice for whoever upgrades the SDK, not about this process. Its documented switch (aws/aws-sdk-js-v3#7983) turns
// only that warning off; an operator's own value is kept.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

async function main(): Promise<void> {
  const e = env();
  freezeLiveSettings();
  const dev = e.NODE_ENV === "development";
  // Settings the schema takes as plain strings, checked before anything starts: a bad entry is a clear error here.
  hostPolicy(e);
  trustedProxies();
  checkStorageSettings(e);
  // A license cache larger than the heap ceiling has room for is said now, not found out under load.
  const heapAdvice = e.LICENSE_CACHE_TTL_MS > 0 ? heapRoomAdvice(e.LICENSE_CACHE_SIZE) : undefined;
  if (heapAdvice) console.warn(`warning: ${heapAdvice}`);
  await prepareDatabase();

  // Production: the configuration the build resolved, without loading next.config.ts (lib/server/built-config.ts).
  if (!dev) process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(builtConfig(process.cwd(), e));
  const app = next({ dev, dir: process.cwd(), hostname: "localhost", port: e.PORT });
  const handle = app.getRequestHandler();
  await app.prepare();

  // The client address is stamped on the request by frontDoor (lib/transports/front.ts) before it gets here.
  const toNext = async (req: IncomingMessage, res: ServerResponse) => {
    if ((req.method === "GET" || req.method === "HEAD") && !req.url?.startsWith("/_next/")) {
      // Storefront pages and the catalog from cache while the content version is unchanged (lib/transports/page-cache.ts).
      if (await servePageFromCache(req, res)) return undefined;
      const rewrite = await missingPageRewrite(req.url ?? "/", req.headers.cookie ?? null).catch(() => null);
      if (rewrite) req.url = rewrite;
    }
    return handle(req, res);
  };

  // Hosts we do not serve (DNS rebinding) and addresses that do not decode are refused first; then the lean paths,
  // then Next. A refused body is read away, within bounds, before the connection closes (lib/transports/lean.ts LINGER).
  // Check for stalled connections every 2 s, so the header and request time limits below act promptly.
  const server = createServer({ connectionsCheckingInterval: 2_000 }, frontDoor(toNext));
  // Bounded time for slow or stalled clients (slowloris), generous for real ones.
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  // An idle kept-alive connection is closed after 65 s, longer than the 60 s idle timeout of the usual load balancers
  // and longer than a client's pause between calls: a client that reuses a connection just as the server closes it gets
  // ECONNRESET (seen once with 5 s, in e2e/dashboard.spec.ts between two calls several seconds apart). An idle
  // connection costs a socket; stalled requests are still cut by the two limits above.
  server.keepAliveTimeout = 65_000;
  server.maxHeadersCount = 100;

  // Delivers queued e-mail (license keys, sign-in links) with retries; see lib/email/deliver-emails.ts.
  const stopOutbox = startOutbox();
  // POSTs queued webhooks (ACP order events to agent platforms), signed, with retries; see lib/webhooks/deliver.ts.
  const stopWebhooks = startWebhookOutbox();
  // Renews, ends and reminds subscriptions as their periods fall due; see lib/subscriptions/renewals.ts.
  const stopSubscriptions = startSubscriptionJobs();
  // Queues each "daily" seller's digest of yesterday's sales (UTC), once per seller and day across instances.
  const stopSaleDigests = startSaleDigests();
  // Removes uploaded images no product refers to any more (an hour's grace, for instances sharing UPLOAD_DIR).
  const stopUploadSweep = startUploadSweep();
  // Removes stored release files no artifact row refers to (a crash between storing a file and recording it).
  const stopArtifactSweep = startArtifactSweep();
  // Resolves refunds a crash left half-done (amount reserved, provider maybe asked); see lib/refunds/resume-refunds.ts.
  const stopRefundSweep = startRefundSweep();
  // Several instances share one PostgreSQL: their rate-limit counts are shared through it too.
  const stopRateLimitSync = dbEngine() === "postgresql" ? startRateLimitSync() : () => undefined;

  server.listen(e.PORT, e.HOST, () => {
    console.log(`ready: ${e.BASE_URL} (${dev ? "development" : "production"}, listening on ${e.HOST}:${e.PORT})`);
    console.log(paymentModeSummary());
    console.log(mailSummary());
  });

  const stop = (signal: string) => {
    console.log(`${signal}: shutting down`);
    stopOutbox();
    stopWebhooks();
    stopSubscriptions();
    stopSaleDigests();
    stopUploadSweep();
    stopArtifactSweep();
    stopRefundSweep();
    stopRateLimitSync();
    server.close(
      () =>
        void flushValidations()
          .catch(() => undefined)
          .then(() => disconnectDb())
          .finally(() => process.exit(0)),
    );
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((error: unknown) => {
  console.error("startup failed:", error instanceof Error ? error.message : error);
  process.exit(1);
});
