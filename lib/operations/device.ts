import { z } from "zod";
import { approveWithLicense, denyDevice, startDeviceCheckout } from "../device/approve-device.ts";
import { pollDeviceToken } from "../device/poll-token.ts";
import { lookupDeviceRequest } from "../device/read-request.ts";
import {
  approveWithLicenseSchema,
  authorizeRequestSchema,
  authorizeResultSchema,
  deviceCheckoutResultSchema,
  deviceCheckoutSchema,
  deviceRequestViewSchema,
  tokenRequestSchema,
  tokenResultSchema,
  userCodeBodySchema,
  type DeviceRequestView,
} from "../device/schemas.ts";
import { startDeviceAuthorization } from "../device/start-authorization.ts";
import type { RateRule } from "../http/rate-limit.ts";
import { RULES } from "../http/rate-limit.ts";
import type { CallContext } from "./define.ts";
import { operation } from "./define.ts";

/** Every call naming a user code counts against the client's tries and that code's: guessing one stays hopeless. */
const userCodeTries = (i: { user_code: string }, c: CallContext): Array<[RateRule, string]> => [
  [RULES.deviceCodeTry, c.client],
  [RULES.deviceCode, i.user_code],
];

const TOKEN_ERRORS =
  "Until then, and when it ends, HTTP 400 problem documents whose `code` and OAuth's `error` member are RFC 8628's names: `authorization_pending` (poll again after `interval` seconds), `slow_down` (polled before the interval was over: the interval grew by 5 s, and the problem's `interval` member is the new value), `access_denied` (the buyer denied it, or the license could no longer be activated: stop), `expired_token` (15 minutes passed: stop and start again), `invalid_grant` (no such device code: stop).";

function viewText(v: DeviceRequestView): string {
  const machine = [v.machine.name, v.machine.platform, v.machine.app_version && `version ${v.machine.app_version}`].filter(Boolean).join(", ");
  return [
    `Request ${v.user_code}: ${v.product.name} by ${v.product.seller} (plugin_id ${v.product.plugin_id}) for the machine ${machine || "(not named)"}; status ${v.status}, until ${v.expires_at}.`,
    v.status === "pending"
      ? `To buy for it, call device_checkout with this user_code and the buyer's e-mail, and give the buyer the URL; once paid, the app receives the license already activated.`
      : `Nothing more can be done with this code.`,
  ].join("\n");
}

/**
 * Buying and activating from inside an app without a key to copy (RFC 8628's device grant): the app's two calls,
 * and what the buyer does at the verification page (look the code up, buy for it, approve it with a license they
 * hold, deny it), which an agent acting for the buyer can do through MCP too.
 */
export const DEVICE = [
  operation({
    id: "authorizeDevice",
    summary: "Start buying or activating from inside an app",
    description:
      "The app asks for a license for this machine without a key: answers a secret `device_code` to poll with, a short `user_code` to show, and `verification_uri_complete` to open in the buyer's browser, where they buy the product or pick a license they hold (or deny). The request lasts `expires_in` (900) seconds; poll POST /api/v1/device/token every `interval` (5) seconds. Same machine fields as POST /activate. 404 `product_not_found` for an unknown or unlisted plugin_id.",
    tag: "Device authorization",
    auth: "public",
    http: { method: "POST", path: "/api/v1/device/authorize" },
    idempotency: "optional",
    input: { body: authorizeRequestSchema },
    output: authorizeResultSchema,
    limits: (_b, c) => [[RULES.activation, c.client]],
    errors: [404, 429],
    handler: (b, c) => startDeviceAuthorization(b, c.client),
  }),
  operation({
    id: "pollDeviceToken",
    summary: "Poll for the license of a device request",
    description: `The app's poll with its device_code. Once the buyer bought or picked a license, 200 with the license key already activated on the request's machine (exactly as POST /activate answers, plus \`license_key\`, \`plugin_id\` and \`expires_at\`); polling again until the request expires answers the same. ${TOKEN_ERRORS}`,
    tag: "Device authorization",
    auth: "public",
    http: { method: "POST", path: "/api/v1/device/token" },
    idempotencyExempt: "A poll takes no seat twice: the license is activated on the machine once, and every later poll reads that answer back.",
    input: { body: tokenRequestSchema },
    output: tokenResultSchema,
    limits: (_b, c) => [[RULES.validate, c.client]],
    errors: [429],
    handler: (b) => pollDeviceToken(b.device_code),
  }),
  operation({
    id: "lookupDeviceCode",
    summary: "Look up a device request by its user code",
    description:
      "What the verification page shows for the code the app displays: the product, the machine the app reported and the request's status. 404 `device_code_not_found` for a code no request has. Codes tried are limited to 10 a minute per client address and 20 a minute per code (429 `rate_limited`).",
    tag: "Device authorization",
    auth: "public",
    readOnly: true,
    http: { method: "POST", path: "/api/v1/device/lookup" },
    input: { body: userCodeBodySchema },
    output: deviceRequestViewSchema,
    limits: userCodeTries,
    errors: [404, 429],
    handler: (b) => lookupDeviceRequest(b.user_code),
    tools: [
      {
        name: "lookup_device_code",
        title: "Look up an app's device code",
        layer: 4,
        description:
          "An app that asks to be licensed shows a short user code (like WDJB-MJHT). Give it here to see which product and which machine the request is for, and whether it still waits for the buyer. Then device_checkout buys a license that the app receives already activated. Codes tried are limited per client.",
        text: viewText,
      },
    ],
  }),
  operation({
    id: "startDeviceCheckout",
    summary: "Buy a license for a waiting app",
    description:
      "Opens the product's usual hosted checkout for the buyer's e-mail, on behalf of the app whose user code is given: once the order is paid, the app's next poll receives the new license already activated on its machine (the key is e-mailed as for any purchase). 404 `device_code_not_found`; 410 `device_code_expired`; 409 `device_request_denied` or `device_request_completed`; and the checkout's own refusals (503 `checkout_not_configured`, 502 `payment_provider_unavailable`). Codes tried count as for lookupDeviceCode.",
    tag: "Device authorization",
    auth: "public",
    http: { method: "POST", path: "/api/v1/device/checkout" },
    idempotency: "optional",
    input: { body: deviceCheckoutSchema },
    output: deviceCheckoutResultSchema,
    limits: (b, c) => [...userCodeTries(b, c), [RULES.checkout, c.client]],
    errors: [404, 409, 410, 429, 502, 503],
    handler: (b) => startDeviceCheckout(b),
    tools: [
      {
        name: "device_checkout",
        title: "Buy a license for a waiting app (a person pays)",
        layer: 4,
        description:
          "For an app showing a user code (see lookup_device_code): opens a hosted checkout for the product, for the buyer's e-mail, and returns its URL. Give the URL to the buyer (a person) to pay; once paid, the app finishes activating on its own, with no key to copy. The key is also e-mailed to buyer_email.",
        text: (o) =>
          `Give the buyer this URL to pay: ${o.url}\nOnce they have paid, the app waiting with code ${o.user_code} receives the license already activated (checkout ${o.session_id}).`,
      },
    ],
  }),
  operation({
    id: "approveDeviceWithLicense",
    summary: "Approve a waiting app with a license you hold",
    description:
      "The signed-in buyer (My licenses' session) binds one of their licenses of the request's product to the app's machine, exactly as POST /activate would; the app's next poll receives it. Another buyer's license, or one of another product, is 404 `license_not_found`; a license that cannot take the machine is 409 `activation_refused` with the licensing code in `activation_code` (TOO_MANY_MACHINES: release a machine first), and the request stays pending. Request states as for startDeviceCheckout.",
    tag: "Device authorization",
    auth: "buyer",
    http: { method: "POST", path: "/api/v1/device/approve" },
    idempotency: "optional",
    input: { body: approveWithLicenseSchema },
    output: z.object({ user_code: z.string(), license_key: z.string(), activated: z.literal(true), code: z.string() }),
    limits: userCodeTries,
    errors: [401, 403, 404, 409, 410, 429],
    handler: (b, c) => approveWithLicense(b, c.buyer.email),
  }),
  operation({
    id: "denyDevice",
    summary: "Deny a waiting app",
    description:
      "The person at the verification page did not start this request: the app's next poll is `access_denied`. Denying a denied request changes nothing; a completed one is 409 `device_request_completed`, an expired one 410 `device_code_expired`.",
    tag: "Device authorization",
    auth: "public",
    http: { method: "POST", path: "/api/v1/device/deny" },
    idempotencyExempt: "Denying a request that is already denied changes nothing and answers the same.",
    input: { body: userCodeBodySchema },
    output: z.object({ user_code: z.string(), status: z.literal("denied") }),
    limits: userCodeTries,
    errors: [404, 409, 410, 429],
    handler: (b) => denyDevice(b.user_code),
  }),
];
