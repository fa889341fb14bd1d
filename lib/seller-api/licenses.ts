import { z } from "zod";
import { formatMoment, shortFingerprint as short } from "../format.ts";
import { dbEngine, getDb } from "../db.ts";
import { containsLiterally, literalIncludes } from "../db/like.ts";
import { AppError, notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { LICENSE_KEY_PATTERN } from "../licensing/keys.ts";
import { LICENSE_EVENT_TYPES, type Actor, type LicenseEventType } from "../licensing/license-events.ts";
import { restoreMachine } from "../licensing/restore-machine.ts";
import type { Prisma } from "../generated/sqlite/client.ts";

/**
 * Finding and reading licenses for the seller API, the dashboard and the operator's console: search by part of a key
 * (with or without its dashes), part of the buyer's e-mail or part of a product name; a license with its machines and
 * its event log. The seller's queries are bounded by their own products first (the (productId, issuedAt) index), so
 * the substring matches only ever scan one seller's licenses; the operator's search matches a whole key by its unique
 * index and anything else by substring (rare, and only for the operator).
 */

const LICENSE_STATUSES = ["active", "revoked", "trial", "expired"] as const;
type LicenseStatusFilter = (typeof LICENSE_STATUSES)[number];

const text = (max: number) => z.string().max(max).refine(singleLineText, CONTROL_CHARACTER_MESSAGE);

export const licenseSearchSchema = z.object({
  q: text(254).optional().describe("Part of a license key (4+ characters, dashes optional), of the buyer's e-mail, or of a product name"),
  product_id: text(64).optional().describe("Only this product's licenses"),
  status: z.enum(LICENSE_STATUSES).optional().describe("active | revoked | trial | expired"),
  limit: z.coerce.number().int().min(1).max(100).default(25).describe("Page size (1–100, default 25)"),
  cursor: text(200).optional().describe("`next_cursor` of the previous page"),
});

const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(LICENSE_EVENT_TYPES);

/**
 * The `type` query parameter of the event log: one type or several, comma-separated (`revoked,reinstated`; a repeated
 * query parameter counts once, as everywhere in this API). An unknown name is refused with the list of known ones; an
 * empty value keeps every event. (The MCP tool takes a list of the enum instead: eventTypeListSchema.)
 */
const eventTypesQuerySchema = text(400)
  .transform((value, ctx) => {
    const names = [...new Set(value.split(",").map((t) => t.trim()))].filter(Boolean);
    const unknown = names.filter((t) => !KNOWN_EVENT_TYPES.has(t));
    if (unknown.length) {
      ctx.addIssue({
        code: "custom",
        message: `unknown event type${unknown.length === 1 ? "" : "s"} ${unknown.map((t) => JSON.stringify(t.slice(0, 40))).join(", ")}; the types are ${LICENSE_EVENT_TYPES.join(", ")}`,
      });
      return z.NEVER;
    }
    return names.length ? (names as LicenseEventType[]) : undefined;
  })
  .optional()
  .describe(`Only events of these types, comma-separated: ${LICENSE_EVENT_TYPES.join(", ")}`);

/** The same filter as a tool's argument: a list of known types. */
export const eventTypeListSchema = z
  .array(
    z.enum(LICENSE_EVENT_TYPES, {
      error: (issue) => `unknown event type ${JSON.stringify(String(issue.input).slice(0, 40))}; the types are ${LICENSE_EVENT_TYPES.join(", ")}`,
    }),
  )
  .max(LICENSE_EVENT_TYPES.length)
  .optional()
  .describe("Only events of these types");

export const eventPageSchema = z.object({
  type: eventTypesQuerySchema,
  limit: z.coerce.number().int().min(1).max(100).default(50).describe("Page size (1–100, default 50)"),
  cursor: text(200).optional().describe("`next_cursor` of the previous page"),
});

const machineSchema = z.object({
  id: z.string().describe("The activation id; release and restore address the machine by it"),
  fingerprint: z.string(),
  short_fingerprint: z.string(),
  name: z.string().nullable().describe("The machine's name as the app reported it at activation"),
  platform: z.string().nullable(),
  app_version: z.string().nullable(),
  activated_at: z.string(),
  last_seen_at: z.string().nullable().describe("The last successful validation (or activation); null if never seen since"),
});

export const licenseSchema = z.object({
  id: z.string(),
  key: z.string(),
  status: z.enum(LICENSE_STATUSES),
  source: z.string().describe("purchase | trial | complimentary"),
  product: z.object({ id: z.string(), name: z.string(), plugin_id: z.string() }),
  buyer_email: z.string(),
  order_id: z.string().nullable(),
  bundle: z
    .object({ order_id: z.string(), product_id: z.string(), name: z.string() })
    .nullable()
    .describe("A license a bundle's order issued (one per included product): that order and the bundle product; its full refund ends them all"),
  max_machines: z.int(),
  active_machines: z.int(),
  issued_at: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  revoked_reason: z.string().nullable(),
  revocation: z
    .string()
    .nullable()
    .describe("Why it is not active: seller | refunded | disputed | dispute_lost | upgraded | transferred (an old key a transfer retired)"),
  machines: z.array(machineSchema),
});
export type LicenseView = z.infer<typeof licenseSchema>;

export const licenseEventSchema = z.object({
  id: z.string(),
  type: z.enum(LICENSE_EVENT_TYPES),
  actor: z.object({ type: z.string().describe("buyer | seller | operator | app | payment | system"), name: z.string().nullable() }),
  at: z.string(),
  last_at: z.string(),
  count: z.int().describe("How many occurrences the row stands for (aggregated validation failures); 1 otherwise"),
  code: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  summary: z.string().describe("One line for people: what happened"),
});
export type LicenseEventView = z.infer<typeof licenseEventSchema>;

const machineSelect = {
  id: true,
  fingerprint: true,
  activatedAt: true,
  lastValidatedAt: true,
  machineName: true,
  platform: true,
  appVersion: true,
} as const;

const licenseSelect = {
  id: true,
  key: true,
  buyerEmail: true,
  maxMachines: true,
  activeMachines: true,
  isActive: true,
  revocation: true,
  revokedAt: true,
  revokedReason: true,
  trial: true,
  source: true,
  issuedAt: true,
  expiresAt: true,
  orderId: true,
  bundleOrder: { select: { id: true, product: { select: { id: true, name: true } } } },
  product: { select: { id: true, name: true, pluginId: true, developerId: true, developer: { select: { id: true, name: true, email: true } } } },
  activations: { select: machineSelect, orderBy: [{ activatedAt: "asc" as const }, { id: "asc" as const }] },
} satisfies Prisma.LicenseSelect;

type LicenseRow = Prisma.LicenseGetPayload<{ select: typeof licenseSelect }>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function statusOf(l: { isActive: boolean; trial: boolean; expiresAt: Date | null }, now: number): LicenseStatusFilter {
  // The same order as lib/licensing's licenseStanding: revoked beats expired beats trial.
  if (!l.isActive) return "revoked";
  if (l.expiresAt && l.expiresAt.getTime() <= now) return "expired";
  return l.trial ? "trial" : "active";
}

function licenseView(l: LicenseRow, now = Date.now()): LicenseView {
  return {
    id: l.id,
    key: l.key,
    status: statusOf(l, now),
    source: l.source,
    product: { id: l.product.id, name: l.product.name, plugin_id: l.product.pluginId },
    buyer_email: l.buyerEmail,
    order_id: l.orderId,
    bundle: l.bundleOrder ? { order_id: l.bundleOrder.id, product_id: l.bundleOrder.product.id, name: l.bundleOrder.product.name } : null,
    max_machines: l.maxMachines,
    active_machines: l.activeMachines,
    issued_at: l.issuedAt.toISOString(),
    expires_at: iso(l.expiresAt),
    revoked_at: iso(l.revokedAt),
    revoked_reason: l.revokedReason,
    revocation: l.revocation,
    machines: l.activations.map((a) => ({
      id: a.id,
      fingerprint: a.fingerprint,
      short_fingerprint: short(a.fingerprint),
      name: a.machineName,
      platform: a.platform,
      app_version: a.appVersion,
      activated_at: a.activatedAt.toISOString(),
      last_seen_at: iso(a.lastValidatedAt),
    })),
  };
}

function statusWhere(status: LicenseStatusFilter | undefined, now: Date): Prisma.LicenseWhereInput {
  const unexpired: Prisma.LicenseWhereInput = { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] };
  switch (status) {
    case "revoked":
      return { isActive: false };
    case "expired":
      return { isActive: true, expiresAt: { lte: now } };
    case "trial":
      return { isActive: true, trial: true, ...unexpired };
    case "active":
      return { isActive: true, trial: false, ...unexpired };
    default:
      return {};
  }
}

/**
 * What a typed part of a key can look like in a stored key (upper case, groups of four joined by dashes): its
 * characters without dashes, with the dashes put back for each of the four places the part can start in a group.
 * "CD12" → "CD12", "D-12" … so "cd12", "CD-12" and "ABCD1234" all find "ABCD-1234-…". Null below four characters.
 */
export function keyFragments(q: string): string[] | null {
  if (!/^[A-Za-z0-9\s-]+$/.test(q)) return null;
  const bare = q.toUpperCase().replace(/[^A-Z0-9]/g, "");
  if (bare.length < 4 || bare.length > 16) return null;
  const out = new Set<string>();
  for (let offset = 0; offset < 4; offset++) {
    let s = "";
    for (let i = 0; i < bare.length; i++) {
      if (i > 0 && (offset + i) % 4 === 0) s += "-";
      s += bare.charAt(i);
    }
    out.add(s);
  }
  return [...out];
}

interface Cursor {
  t: string;
  id: string;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");

function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const c = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<Cursor>;
    if (typeof c.t === "string" && typeof c.id === "string" && !Number.isNaN(Date.parse(c.t)) && c.id.length <= 64) return { t: c.t, id: c.id };
  } catch {
    // Falls through to the 400.
  }
  throw new AppError("invalid_cursor", 400, "The cursor is not one this API returned; start again without it.");
}

/** Strictly after the cursor, newest first by (time, id): stable under inserts and ties. */
function afterCursor(c: Cursor | null, field: "issuedAt" | "createdAt") {
  if (!c) return {};
  const t = new Date(c.t);
  return { OR: [{ [field]: { lt: t } }, { [field]: t, id: { lt: c.id } }] };
}

/** Product ids bound one by one into a license query; more are named by a subquery. */
const MAX_LISTED_IDS = 500;

/** Candidates read a chunk at a time when a substring filter could only narrow the search (see searchLicenses). */
const CANDIDATE_CHUNK = 500;

/**
 * A seller's licenses matching the search, newest first, a page at a time (`next_cursor` null on the last page).
 * With `developerId` null, the operator's search across sellers: by key or e-mail only. The text is matched
 * literally, `%` and `_` included (lib/db/like.ts): on SQLite, whose LIKE cannot escape them through Prisma, a text
 * holding one reads the candidates the LIKE finds a chunk at a time and keeps those that hold it.
 */
export async function searchLicenses(developerId: string | null, input: z.output<typeof licenseSearchSchema>, now = Date.now()) {
  const db = getDb();
  const engine = dbEngine();
  const q = (input.q ?? "").trim();
  const cursor = decodeCursor(input.cursor);
  const scope: Prisma.LicenseWhereInput[] = [];
  const match: Prisma.LicenseWhereInput[] = [];
  // Whether every LIKE in `match` is exact; otherwise `holds` tells which candidates match literally.
  let exact = true;
  let named: string[] = [];
  const nameLike = containsLiterally(q, engine);
  const email = q.toLowerCase();
  const emailLike = containsLiterally(email, engine);
  if (developerId !== null) {
    // The license's own seller column (kept by triggers, migration `license_developer`): the list walks the
    // (developerId, issuedAt, id) index newest first, however many products and licenses the seller has.
    scope.push({ developerId });
    if (input.product_id) scope.push({ productId: input.product_id });
    if (q) {
      // The seller's products whose name holds the text: a list of ids is bound as one parameter each, so past a
      // few hundred (databases cap parameters per query) they are named by a subquery instead.
      const needle = q.toLocaleLowerCase("en");
      const products = await db.product.findMany({ where: { developerId }, select: { id: true, name: true } });
      named = products
        .filter((p) => (!input.product_id || p.id === input.product_id) && p.name.toLocaleLowerCase("en").includes(needle))
        .map((p) => p.id);
      if (named.length > MAX_LISTED_IDS) {
        match.push({ product: { developerId, name: nameLike.filter } });
        exact &&= nameLike.exact;
      } else if (named.length) match.push({ productId: { in: named } });
    }
  } else if (input.product_id) {
    scope.push({ productId: input.product_id });
  }
  const compact = q.toUpperCase().replace(/\s+/g, "");
  const wholeKey = LICENSE_KEY_PATTERN.test(compact);
  const fragments = wholeKey ? [] : (keyFragments(q) ?? []);
  if (q) {
    if (wholeKey) match.push({ key: compact });
    else for (const f of fragments) match.push({ key: { contains: f } });
    match.push({ buyerEmail: emailLike.filter });
    exact &&= emailLike.exact;
  }
  const where = [...scope, statusWhere(input.status, new Date(now)), ...(q ? [{ OR: match }] : [])];
  const orderBy: Prisma.LicenseOrderByWithRelationInput[] = [{ issuedAt: "desc" }, { id: "desc" }];
  let rows: LicenseRow[];
  if (exact) {
    rows = await db.license.findMany({
      where: { AND: [...where, afterCursor(cursor, "issuedAt")] },
      orderBy,
      take: input.limit + 1,
      select: licenseSelect,
    });
  } else {
    // Key fragments never hold `%` or `_`; the product names were matched above, in full.
    const byName = new Set(named);
    const holds = (l: { key: string; buyerEmail: string; productId: string }) =>
      (wholeKey ? l.key === compact : fragments.some((f) => l.key.includes(f))) ||
      byName.has(l.productId) ||
      literalIncludes(l.buyerEmail, email, engine);
    const ids: string[] = [];
    let after = cursor;
    while (ids.length <= input.limit) {
      const chunk = await db.license.findMany({
        where: { AND: [...where, afterCursor(after, "issuedAt")] },
        orderBy,
        take: CANDIDATE_CHUNK,
        select: { id: true, issuedAt: true, key: true, buyerEmail: true, productId: true },
      });
      for (const l of chunk) if (ids.length <= input.limit && holds(l)) ids.push(l.id);
      const last = chunk.at(-1);
      if (chunk.length < CANDIDATE_CHUNK || !last) break;
      after = { t: last.issuedAt.toISOString(), id: last.id };
    }
    const found = new Map((await db.license.findMany({ where: { id: { in: ids } }, select: licenseSelect })).map((l) => [l.id, l]));
    rows = ids.flatMap((id) => found.get(id) ?? []);
  }
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    licenses: page.map((l) => licenseView(l, now)),
    next_cursor: rows.length > input.limit && last ? encodeCursor({ t: last.issuedAt.toISOString(), id: last.id }) : null,
  };
}

/** Same as searchLicenses, with the seller of each license (the operator's console). */
export async function searchAllLicenses(input: z.output<typeof licenseSearchSchema>) {
  const found = await searchLicenses(null, input);
  const sellers = await getDb().license.findMany({
    where: { id: { in: found.licenses.map((l) => l.id) } },
    select: { id: true, product: { select: { developer: { select: { id: true, name: true } } } } },
  });
  const by = new Map(sellers.map((s) => [s.id, s.product.developer]));
  return { ...found, licenses: found.licenses.map((l) => ({ ...l, seller: by.get(l.id) ?? null })) };
}

async function licenseRow(developerId: string | null, licenseId: string): Promise<LicenseRow> {
  const row = await getDb().license.findFirst({
    where: { id: licenseId.slice(0, 64), ...(developerId !== null ? { product: { developerId } } : {}) },
    select: licenseSelect,
  });
  if (!row) throw notFound("license", developerId !== null ? "You have no license with this id." : "There is no license with this id.");
  return row;
}

/** One license with its machines; another seller's is a 404 (`developerId` null: the operator, any seller's). */
export async function licenseDetail(developerId: string | null, licenseId: string) {
  const row = await licenseRow(developerId, licenseId);
  return { license: licenseView(row), seller: row.product.developer };
}

/** What each kind of event is called in a summary (validation failures have a sentence of their own). */
export const EVENT_LABELS: Record<Exclude<LicenseEventType, "validation_failed">, string> = {
  issued: "Issued",
  activated: "Machine activated",
  deactivated: "Machine deactivated by the app",
  released: "Machine released",
  restored: "Machine restored (release undone)",
  revoked: "Revoked",
  reinstated: "Reinstated",
  refunded: "Refunded",
  disputed: "Payment disputed",
  dispute_won: "Dispute won",
  dispute_lost: "Dispute lost",
  renewed: "Renewed",
  payment_failed: "Payment failed",
  recovered: "Payment recovered",
  canceled: "Canceled",
  resumed: "Resumed",
  plan_changed: "Plan changed",
  expired: "Expired",
  upgraded_to: "Upgraded",
  upgraded_from: "Issued as an upgrade",
  upgrade_refunded: "Upgrade refunded",
  transferred: "Transferred to a new holder",
};

/**
 * A reason without the label the summary already starts with: a refund's reason is kept as "Refunded: <why>" (the
 * license's revoked_reason says why on its own), and a seller may type "Revoked: leaked key"; the summary says the
 * label once ("Refunded: <why>").
 */
function withoutLabel(reason: string, label: string): string {
  let rest = reason.trim();
  for (;;) {
    const head = rest.slice(0, label.length);
    if (head.toLowerCase() !== label.toLowerCase() || !/^\s*(?::|$)/.test(rest.slice(label.length))) return rest;
    rest = rest.slice(label.length).replace(/^\s*:?\s*/, "");
  }
}

/** One line for people about one event (`LicenseEventView.summary`). */
function eventSummary(e: {
  type: string;
  code: string | null;
  count: number;
  hour: Date | null;
  createdAt: Date;
  detail: Record<string, unknown>;
}): string {
  if (e.type === "validation_failed") {
    const n = e.count;
    return `${String(n)} failed ${n === 1 ? "validation" : "validations"} (${e.code ?? "unknown"}) in the hour of ${formatMoment(e.hour ?? e.createdAt)}`;
  }
  const d = e.detail;
  const machine =
    typeof d.fingerprint === "string"
      ? `${typeof d.machine_name === "string" && d.machine_name ? `${d.machine_name} ` : ""}(${short(d.fingerprint)})`
      : "";
  const base = (EVENT_LABELS as Record<string, string | undefined>)[e.type] ?? e.type.replace(/_/g, " ");
  const why = typeof d.reason === "string" ? withoutLabel(d.reason, base) : "";
  const reason = why ? `: ${why}` : "";
  // A license a bundle's order issued names the bundle (its name when it was sold).
  const bundle = typeof d.bundle === "string" && d.bundle ? ` with the bundle "${d.bundle}"` : "";
  return `${base}${bundle}${machine ? ` ${machine}` : ""}${reason}`;
}

/** A license's events, newest first, a page at a time (the license looked up as licenseDetail does). */
export async function licenseEvents(developerId: string | null, licenseId: string, input: z.output<typeof eventPageSchema>) {
  await licenseRow(developerId, licenseId);
  const cursor = decodeCursor(input.cursor);
  const rows = await getDb().licenseEvent.findMany({
    where: { licenseId, ...(input.type ? { type: { in: input.type } } : {}), ...afterCursor(cursor, "createdAt") },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    events: page.map((e): LicenseEventView => {
      const detail = e.detail && typeof e.detail === "object" && !Array.isArray(e.detail) ? (e.detail as Record<string, unknown>) : {};
      return {
        id: e.id,
        type: e.type as LicenseEventView["type"],
        actor: { type: e.actorType, name: e.actor },
        at: e.createdAt.toISOString(),
        last_at: e.lastAt.toISOString(),
        count: e.count,
        code: e.code,
        detail,
        summary: eventSummary({ ...e, detail }),
      };
    }),
    next_cursor: rows.length > input.limit && last ? encodeCursor({ t: last.createdAt.toISOString(), id: last.id }) : null,
  };
}

/**
 * The fingerprint of a machine released (or deactivated) from this license, by its activation id, from the latest
 * such event: what restoreMachine needs once the activation row is gone. Null when the license has no such event.
 */
async function releasedFingerprint(licenseId: string, activationId: string): Promise<string | null> {
  const events = await getDb().licenseEvent.findMany({
    where: { licenseId, type: { in: ["released", "deactivated"] } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 200,
    select: { detail: true },
  });
  for (const e of events) {
    const d = e.detail as Record<string, unknown> | null;
    if (d && d.activation_id === activationId && typeof d.fingerprint === "string") return d.fingerprint;
  }
  return null;
}

/**
 * The undo of a release of one machine, addressed by the machine's (former) activation id, for a caller who has
 * already checked the license is theirs: restoreMachine (lib/licensing/restore-machine.ts) with the fingerprint the
 * release recorded. `restored` false: the machine is back already (a repeated undo, or the app activated it again).
 */
export async function restoreReleasedMachine(licenseId: string, activationId: string, actor: Actor): Promise<{ restored: boolean }> {
  const current = await getDb().activation.findFirst({ where: { id: activationId.slice(0, 64), licenseId }, select: { id: true } });
  if (current) return { restored: false };
  const fingerprint = await releasedFingerprint(licenseId, activationId);
  if (!fingerprint) throw notFound("activation", "This license never had a machine with this id released.");
  return { restored: (await restoreMachine(licenseId, fingerprint, actor)).restored };
}
