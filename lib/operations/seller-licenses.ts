import { z } from "zod";
import { complimentaryInputSchema, issueComplimentaryLicense, sellerReleaseMachine, sellerSetLicenseStatus } from "../selling/licenses.ts";
import { notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import type { Actor } from "../licensing/license-events.ts";
import { UNDO_WINDOW_MS } from "../licensing/restore-machine.ts";
import {
  eventPageSchema,
  eventTypeListSchema,
  licenseDetail,
  licenseEvents,
  licenseEventSchema,
  licenseSchema,
  licenseSearchSchema,
  restoreReleasedMachine,
  searchLicenses,
  type LicenseView,
} from "../seller-api/licenses.ts";
import { operation, type Operation, type Seller } from "./define.ts";

/** The seller as the license event log names them. */
function asActor(seller: Seller): { developerId: string; actor: Actor } {
  return { developerId: seller.developer.id, actor: { type: "seller", name: seller.actor } };
}

const id = (what: string) => z.string().min(1).max(64).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).describe(what);
const licenseParams = z.object({ id: id("The license id") });
const machineParams = z.object({ id: id("The license id"), machine_id: id("The machine's id (`machines[].id`)") });

const licenseOut = z.object({ license: licenseSchema });
const machineOut = licenseSchema.shape.machines.element;

const licenseLine = (l: LicenseView) =>
  `${l.key} — ${l.product.name} — ${l.buyer_email} — ${l.status} — ${String(l.active_machines)}/${String(l.max_machines)} machines (id ${l.id})`;

const machineLine = (m: z.infer<typeof machineOut>) =>
  `${m.name ?? "unnamed machine"} (${m.short_fingerprint}; ${m.platform ?? "platform unknown"}; app ${m.app_version ?? "?"}; last seen ${m.last_seen_at ?? "never"}; machine id ${m.id})`;

const licenseText = (l: LicenseView) =>
  [licenseLine(l), ...(l.machines.length ? l.machines.map((m) => `  - ${machineLine(m)}`) : ["  No machines activated."])].join("\n");

/** The seller's licenses over the seller API: find, read, give away, revoke and reinstate, release and restore machines. */
export const SELLER_LICENSES: Operation[] = [
  operation({
    id: "listSellerLicenses",
    summary: "Your licenses",
    description:
      "Your licenses, newest first, with their machines. `q` matches part of a key (4 or more characters, with or without the dashes, any case: `ABCD1234` finds `ABCD-1234-…`), part of the buyer's e-mail, or part of a product name; `product_id` and `status` (active, revoked, trial, expired) narrow it. Pages of `limit` (≤ 100); pass `next_cursor` as `cursor` for the next page (null on the last one).",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "GET", path: "/api/v1/licenses" },
    input: { query: licenseSearchSchema },
    output: z.object({ licenses: z.array(licenseSchema), next_cursor: z.string().nullable() }),
    errors: [401, 403],
    handler: (q, c) => searchLicenses(asActor(c.seller).developerId, q),
    tools: [
      {
        name: "seller_list_licenses",
        title: "Find your licenses",
        layer: 6,
        description:
          "Find licenses of your own products: `q` is part of a license key (4+ characters, dashes optional), part of the buyer's e-mail address, or part of a product name; `status` filters to active, revoked, trial or expired. Answers each license with its id, key, product, buyer, status and machines (with their machine ids). Use it before revoking a license or releasing a machine, to get the ids those tools need.",
        text: (o) =>
          o.licenses.length
            ? [
                `${String(o.licenses.length)} license${o.licenses.length === 1 ? "" : "s"}${o.next_cursor ? ` (more: cursor ${o.next_cursor})` : ""}:`,
                ...o.licenses.map(licenseText),
              ].join("\n")
            : "No license matches.",
      },
    ],
  }),
  operation({
    id: "getSellerLicense",
    summary: "One of your licenses",
    description:
      "The license with its product, order id and machines: id, fingerprint (full and short), name, platform and app version as the app reported them at activation, activated at, and last seen (the last successful validation).",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "GET", path: "/api/v1/licenses/{id}" },
    input: { params: licenseParams },
    output: licenseOut,
    errors: [401, 403, 404],
    handler: async (p, c) => ({ license: (await licenseDetail(asActor(c.seller).developerId, p.id)).license }),
  }),
  operation({
    id: "listLicenseEvents",
    summary: "A license's event log",
    description:
      "What happened to the license, newest first: issued, activated, deactivated (by the app), released (by the buyer or you), restored, revoked, reinstated, refunded, disputed, dispute won or lost, subscription and upgrade steps, each with its actor (buyer, seller, operator, app, payment, system; a seller API token as `token:<name>`) and time; failed validations are one row per error code and hour with a count. `type` keeps only the named types, comma-separated (`revoked,reinstated`); an unknown type is 400 `invalid_query` naming the known ones. Pages of `limit` (≤ 100) with `cursor`.",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "GET", path: "/api/v1/licenses/{id}/events" },
    input: { params: licenseParams, query: eventPageSchema },
    output: z.object({ events: z.array(licenseEventSchema), next_cursor: z.string().nullable() }),
    errors: [401, 403, 404],
    handler: (p, c) => licenseEvents(asActor(c.seller).developerId, p.id, p),
    tools: [
      {
        name: "seller_license_events",
        title: "A license's event log",
        layer: 6,
        args: z.object({
          id: licenseParams.shape.id,
          type: eventTypeListSchema,
          limit: eventPageSchema.shape.limit,
          cursor: eventPageSchema.shape.cursor,
        }),
        description:
          'The history of one of your licenses by its id (from seller_list_licenses), newest first: issued, machines activated, released and restored, revoked and reinstated, refunds, disputes, subscription and upgrade steps, failed validations per hour, each with who did it (a seller API token shows as token:<name>). `type` keeps only some kinds, e.g. ["revoked", "refunded"]. Use it to answer a buyer asking why their key stopped working.',
        text: (o) =>
          o.events.length
            ? [
                `${String(o.events.length)} event${o.events.length === 1 ? "" : "s"}${o.next_cursor ? ` (more: cursor ${o.next_cursor})` : ""}:`,
                ...o.events.map((e) => `${e.at} — ${e.summary} — ${e.actor.type}${e.actor.name ? ` (${e.actor.name})` : ""}`),
              ].join("\n")
            : "No event matches.",
      },
    ],
  }),
  operation({
    id: "issueComplimentaryLicense",
    summary: "Issue a complimentary license",
    description:
      "A free license for one of your products (press, giveaways, support), e-mailed to the recipient like a purchase. Your daily quotas apply (429 `complimentary_quota_exceeded` with Retry-After). Send an `Idempotency-Key` so a retried request does not issue a second license.",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "POST", path: "/api/v1/licenses", status: 201 },
    input: { body: complimentaryInputSchema },
    output: licenseOut,
    idempotency: "optional",
    errors: [401, 403, 404, 409, 422, 429],
    handler: async (b, c) => {
      const { developerId, actor } = asActor(c.seller);
      const issued = await issueComplimentaryLicense(developerId, b, undefined, actor);
      return { license: (await licenseDetail(developerId, issued.id)).license };
    },
  }),
  operation({
    id: "revokeLicense",
    summary: "Revoke a license",
    description:
      "The key fails every validation and activation from now on (its machines stay listed). Optional `reason`, kept with the license and in its event log. Revoking a revoked license only restates the reason. An old key a transfer retired (revocation `transferred`) is not revoked again: 409 `license_transferred` (the license continues under its new key). Undo with reinstateLicense.",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "POST", path: "/api/v1/licenses/{id}/revoke" },
    input: {
      params: licenseParams,
      body: z.object({ reason: z.string().max(200).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).optional().describe("Why (≤ 200 characters)") }),
    },
    output: licenseOut,
    errors: [401, 403, 404, 409],
    handler: async (p, c) => {
      const { developerId, actor } = asActor(c.seller);
      const reason = p.reason?.replace(/\s+/g, " ").trim() || undefined;
      await sellerSetLicenseStatus(developerId, p.id, false, reason, actor);
      return { license: (await licenseDetail(developerId, p.id)).license };
    },
    tools: [
      {
        name: "seller_revoke_license",
        title: "Revoke a license",
        layer: 6,
        description:
          "Revoke one of your licenses by its id (from seller_list_licenses): the key stops working in the app at its next check. Give a short `reason` (refund, leaked key, chargeback). It can be undone with seller_reinstate_license. Confirm with the seller before revoking.",
        text: (o) => `Revoked: ${licenseLine(o.license)}. Undo with seller_reinstate_license.`,
      },
    ],
  }),
  operation({
    id: "reinstateLicense",
    summary: "Reinstate a license",
    description:
      "Undoes your revocation: the key works again on its machines. A license ended by the payment side (refunded, disputed, dispute lost) cannot be reinstated: 409 `license_revoked_by_payment`; one an upgrade retired comes back only if the upgrade is refunded: 409 `license_upgraded`; an old key a transfer retired stays retired: 409 `license_transferred`. Reinstating an active license changes nothing.",
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "POST", path: "/api/v1/licenses/{id}/reinstate" },
    input: { params: licenseParams },
    output: licenseOut,
    errors: [401, 403, 404, 409],
    handler: async (p, c) => {
      const { developerId, actor } = asActor(c.seller);
      await sellerSetLicenseStatus(developerId, p.id, true, undefined, actor);
      return { license: (await licenseDetail(developerId, p.id)).license };
    },
    tools: [
      {
        name: "seller_reinstate_license",
        title: "Reinstate a license",
        layer: 6,
        description:
          "Reinstate one of your revoked licenses by its id: the key works again. Refused (license_revoked_by_payment) when a refund or a payment dispute ended it; offer a complimentary license then.",
        text: (o) => `Reinstated: ${licenseLine(o.license)}.`,
      },
    ],
  }),
  operation({
    id: "releaseMachine",
    summary: "Release a machine",
    description: `Frees the machine's seat at once (a buyer who reinstalled, say); the app on it asks for the key again at its next check. Undo within ${String(UNDO_WINDOW_MS / 1000)} seconds with restoreMachine (\`undo_until\`). A machine no longer on the license is 404 \`activation_not_found\`.`,
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "POST", path: "/api/v1/licenses/{id}/machines/{machine_id}/release" },
    input: { params: machineParams },
    output: z.object({ machine: machineOut, undo_until: z.string(), license: licenseSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => {
      const { developerId, actor } = asActor(c.seller);
      const before = (await licenseDetail(developerId, p.id)).license;
      const machine = before.machines.find((m) => m.id === p.machine_id);
      if (!machine) throw notFound("activation", "This license has no such machine.");
      const done = await sellerReleaseMachine(developerId, p.id, p.machine_id, actor);
      // Released by a concurrent request a moment ago: the same 404 as a machine that is gone.
      if (!done.deactivated) throw notFound("activation", "This license has no such machine.");
      return {
        machine,
        undo_until: new Date(Date.now() + UNDO_WINDOW_MS).toISOString(),
        license: (await licenseDetail(developerId, p.id)).license,
      };
    },
    tools: [
      {
        name: "seller_release_machine",
        title: "Release a machine",
        layer: 6,
        description:
          "Release one machine of one of your licenses (license id and machine id from seller_list_licenses), freeing its seat, typically when a buyer writes that they reinstalled or replaced a computer and the key says all seats are taken. The app on that machine asks for the key again.",
        text: (o) =>
          `Released ${machineLine(o.machine)} from ${o.license.key}; ${String(o.license.active_machines)}/${String(o.license.max_machines)} machines now in use.`,
      },
    ],
  }),
  operation({
    id: "restoreMachine",
    summary: "Restore a released machine (undo)",
    description: `Puts back a machine released in the last ${String(UNDO_WINDOW_MS / 1000)} seconds, as it was (same machine id, details and activation time), if a seat is free: 409 \`undo_expired\` after that, 409 \`no_free_seat\` when another machine took the seat. Restoring a machine that is back already changes nothing (\`restored\`: false).`,
    tag: "Licenses",
    auth: "seller",
    sellerScope: "licenses",
    http: { method: "POST", path: "/api/v1/licenses/{id}/machines/{machine_id}/restore" },
    input: { params: machineParams },
    output: z.object({ restored: z.boolean(), license: licenseSchema }),
    errors: [401, 403, 404, 409],
    handler: async (p, c) => {
      const { developerId, actor } = asActor(c.seller);
      const { license } = await licenseDetail(developerId, p.id);
      const { restored } = await restoreReleasedMachine(license.id, p.machine_id, actor);
      return { restored, license: (await licenseDetail(developerId, p.id)).license };
    },
  }),
];
