import { createHash, randomBytes } from "node:crypto";
import { getDb, type Db } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { AppError, notFound } from "../http/errors.ts";
import { generateLicenseKey } from "../licensing/keys.ts";
import { licenseChanged } from "../licensing/license-change.ts";
import { licenseCache } from "../licensing/license-state.ts";
import { LICENSE_FACTS } from "../seller-webhooks/payloads.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { transferDoneNewHolderEmail, transferDoneOldHolderEmail, transferDoneSellerEmail, transferOfferEmail } from "./emails.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** How long a transfer's link may be accepted. */
const TRANSFER_TTL_MS = 7 * 86_400_000;
/** The page the offer's link opens (it carries the token in `?token=`). */
const TRANSFER_ACCEPT_PATH = "/licenses/transfer";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
const lower = (email: string) => email.trim().toLowerCase();

const eligibilitySelect = {
  id: true,
  key: true,
  buyerEmail: true,
  isActive: true,
  revocation: true,
  trial: true,
  source: true,
  expiresAt: true,
  billing: true,
  maxMachines: true,
  issuedAt: true,
  statusIndex: true,
  productId: true,
  subscription: { select: { id: true } },
  order: { select: { refundedCents: true, disputeStatus: true } },
  bundleOrder: { select: { refundedCents: true, disputeStatus: true } },
  product: { select: { name: true, allowTransfers: true, developerId: true, developer: { select: { email: true } } } },
} as const;

type Eligible = NonNullable<Awaited<ReturnType<typeof loadLicense>>>;

function loadLicense(db: Tx | Db, licenseId: string) {
  return db.license.findUnique({ where: { id: licenseId }, select: eligibilitySelect });
}

/**
 * Why this license may not change hands, as an error; nothing when it may. Never a refunded, disputed or revoked
 * license (a partial refund counts), nor an expired one, a trial, or one that follows a subscription or an updates
 * plan; and only where the seller allows transfers of the product.
 */
function refusal(l: Eligible, now: Date): AppError | null {
  if (!l.product.allowTransfers) return new AppError("transfer_not_allowed", 403, "The seller does not allow transfers of this product's licenses.");
  const money = [l.order, l.bundleOrder].filter((o) => o !== null);
  if (l.revocation === "refunded" || money.some((o) => o.refundedCents > 0))
    return new AppError("license_refunded", 409, "A refunded license cannot be transferred.");
  if (l.revocation === "disputed" || l.revocation === "dispute_lost" || money.some((o) => o.disputeStatus === "open" || o.disputeStatus === "lost"))
    return new AppError("license_disputed", 409, "A license whose payment is or was disputed cannot be transferred.");
  if (!l.isActive) return new AppError("license_revoked", 409, "A revoked license cannot be transferred.");
  if (l.trial || l.source === "trial") return new AppError("license_trial", 409, "A trial license cannot be transferred.");
  if (l.subscription !== null || l.billing !== null)
    return new AppError("license_subscription", 409, "A license that follows a subscription or an updates plan cannot be transferred.");
  if (l.expiresAt !== null && l.expiresAt <= now) return new AppError("license_expired", 409, "An expired license cannot be transferred.");
  return null;
}

/** One of the buyer's own licenses (anyone else's is a 404), with what decides whether it may be transferred. */
async function ownLicense(db: Tx | Db, buyerEmail: string, licenseId: string): Promise<Eligible> {
  const l = await loadLicense(db, licenseId);
  if (!l || l.buyerEmail !== lower(buyerEmail)) throw notFound("license", "You have no such license.");
  return l;
}

export interface TransferView {
  transfer_id: string;
  license_id: string;
  to_email: string;
  status: string;
  expires_at: string;
}

/**
 * The holder offers one of their licenses to another address: any earlier pending offer of it is cancelled, and the
 * recipient is e-mailed a single-use link (its token is stored only as its SHA-256) valid for 7 days.
 */
export async function startTransfer(buyerEmail: string, input: { license_id: string; to_email: string }, now = new Date()): Promise<TransferView> {
  const from = lower(buyerEmail);
  const to = lower(input.to_email);
  if (to === from) throw new AppError("transfer_to_self", 400, "The license is already yours: name another address.");
  const db = getDb();
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + TRANSFER_TTL_MS);
  const transfer = await db.$transaction(async (tx) => {
    const l = await ownLicense(tx, from, input.license_id);
    const refused = refusal(l, now);
    if (refused) throw refused;
    await tx.licenseTransfer.updateMany({ where: { licenseId: l.id, status: "pending" }, data: { status: "cancelled" } });
    const created = await tx.licenseTransfer.create({
      data: { licenseId: l.id, fromEmail: from, toEmail: to, tokenHash: hashToken(token), expiresAt, createdAt: now },
    });
    const acceptUrl = absoluteUrl(`${TRANSFER_ACCEPT_PATH}?token=${token}`);
    await enqueueEmail(tx, {
      to,
      ...transferOfferEmail({ productName: l.product.name, fromEmail: from, acceptUrl, expiresAt }),
      kind: "license-transfer-offer",
      dedupeKey: `transfer-offer:${created.id}`,
    });
    return created;
  });
  kickOutbox();
  return view(transfer);
}

const view = (t: { id: string; licenseId: string; toEmail: string; status: string; expiresAt: Date }): TransferView => ({
  transfer_id: t.id,
  license_id: t.licenseId,
  to_email: t.toEmail,
  status: t.status,
  expires_at: t.expiresAt.toISOString(),
});

/** The holder withdraws a pending offer; one of another buyer's, or no longer pending, is a 404. */
export async function cancelTransfer(buyerEmail: string, transferId: string): Promise<TransferView> {
  const db = getDb();
  const done = await db.licenseTransfer.updateMany({
    where: { id: transferId, fromEmail: lower(buyerEmail), status: "pending" },
    data: { status: "cancelled" },
  });
  if (done.count === 0) throw notFound("transfer", "You have no pending transfer with this id.");
  return view(await db.licenseTransfer.findUniqueOrThrow({ where: { id: transferId } }));
}

/** The pending offers of a buyer's licenses, and those offered to the buyer, for My licenses. */
export async function buyerTransfers(buyerEmail: string, now = new Date()) {
  const email = lower(buyerEmail);
  const rows = await getDb().licenseTransfer.findMany({
    where: { status: "pending", expiresAt: { gt: now }, OR: [{ fromEmail: email }, { toEmail: email }] },
    orderBy: { createdAt: "desc" },
    take: 200,
  });
  const names = new Map(
    (
      await getDb().license.findMany({
        where: { id: { in: rows.map((r) => r.licenseId) } },
        select: { id: true, product: { select: { name: true, developer: { select: { name: true } } } } },
      })
    ).map((l) => [l.id, { product: l.product.name, seller: l.product.developer.name }]),
  );
  const withNames = rows.map((r) => ({
    ...view(r),
    from_email: r.fromEmail,
    product_name: names.get(r.licenseId)?.product ?? "",
    seller_name: names.get(r.licenseId)?.seller ?? "",
  }));
  return { outgoing: withNames.filter((r) => r.from_email === email), incoming: withNames.filter((r) => r.to_email === email) };
}

export interface AcceptedTransfer {
  license_id: string;
  license_key: string;
  released_machines: number;
}

/**
 * The recipient, signed in with the address the offer names, accepts it (by the link's token, or by the offer's id
 * from My licenses). In one transaction: the offer is taken (once), the license moves to the new holder with a new
 * key, every machine is released, and the old key is kept on a retired record (revocation "transferred", so
 * /validate answers TRANSFERRED) that also takes over the license's place in the credential status list, so a
 * credential issued to the old holder stops verifying; the log records "transferred", the seller gets
 * license.transferred, and old holder, new holder and seller are e-mailed.
 */
export async function acceptTransfer(
  recipientEmail: string,
  by: { token?: string; transfer_id?: string },
  now = new Date(),
): Promise<AcceptedTransfer> {
  const me = lower(recipientEmail);
  const db = getDb();
  const found = by.token
    ? await db.licenseTransfer.findUnique({ where: { tokenHash: hashToken(by.token) } })
    : by.transfer_id
      ? await db.licenseTransfer.findFirst({ where: { id: by.transfer_id, toEmail: me } })
      : null;
  if (!found) throw notFound("transfer", "This transfer link is not valid.");
  if (found.toEmail !== me)
    throw new AppError(
      "transfer_other_recipient",
      403,
      "This transfer is offered to another address: sign in with the address the e-mail was sent to.",
    );
  if (found.status === "accepted") throw new AppError("transfer_accepted", 409, "This transfer was accepted already.");
  if (found.status !== "pending") throw new AppError("transfer_cancelled", 409, "The holder cancelled this transfer.");
  if (found.expiresAt <= now) throw new AppError("transfer_expired", 410, "This transfer link has expired; ask the holder to send a new one.");

  const result = await db.$transaction(async (tx) => {
    const taken = await tx.licenseTransfer.updateMany({ where: { id: found.id, status: "pending" }, data: { status: "accepted", acceptedAt: now } });
    if (taken.count === 0) throw new AppError("transfer_accepted", 409, "This transfer was accepted or cancelled meanwhile.");
    const l = await loadLicense(tx, found.licenseId);
    if (!l || l.buyerEmail !== found.fromEmail)
      throw new AppError("transfer_stale", 409, "The license changed hands meanwhile; this transfer no longer applies.");
    const refused = refusal(l, now);
    if (refused) throw refused;
    const released = await tx.activation.deleteMany({ where: { licenseId: l.id } });
    const newKey = generateLicenseKey();
    await tx.license.update({
      where: { id: l.id },
      data: { key: newKey, buyerEmail: me, activeMachines: 0, statusIndex: null },
    });
    // The old key, retired: it answers TRANSFERRED, and holds the position any credential of the old holder names.
    const retired = await tx.license.create({
      data: {
        key: l.key,
        productId: l.productId,
        buyerEmail: found.fromEmail,
        maxMachines: l.maxMachines,
        isActive: false,
        revocation: "transferred",
        revokedAt: now,
        revokedReason: `Transferred to another holder (license ${l.id})`,
        source: "transferred",
        statusIndex: l.statusIndex,
        issuedAt: l.issuedAt,
      },
      select: { id: true },
    });
    // The old holder's review stays theirs: it goes with their retired key (still a verified purchase, still in the
    // rating), so the new holder neither appears as its author nor edits it, and may write their own.
    await tx.review.updateMany({ where: { licenseId: l.id }, data: { licenseId: retired.id } });
    const facts = await tx.license.findUniqueOrThrow({ where: { id: l.id }, select: LICENSE_FACTS });
    const queued = await licenseChanged(
      tx,
      facts,
      "transferred",
      { type: "buyer", name: me },
      {
        detail: { from: found.fromEmail, to: me, transfer_id: found.id, released_machines: released.count },
        webhook: "license.transferred",
        extra: { reason: "transferred" },
        at: now,
      },
    );
    await enqueueEmail(tx, {
      to: found.fromEmail,
      ...transferDoneOldHolderEmail({ productName: l.product.name, toEmail: me }),
      kind: "license-transferred",
      dedupeKey: `transfer-done-old:${found.id}`,
    });
    await enqueueEmail(tx, {
      to: me,
      ...transferDoneNewHolderEmail({
        productName: l.product.name,
        licenseKey: newKey,
        maxMachines: l.maxMachines,
        myLicensesUrl: absoluteUrl(paths.myLicenses),
      }),
      kind: "license-transferred",
      dedupeKey: `transfer-done-new:${found.id}`,
    });
    await enqueueEmail(tx, {
      to: l.product.developer.email,
      ...transferDoneSellerEmail({ productName: l.product.name, fromEmail: found.fromEmail, toEmail: me, licenseId: l.id }),
      kind: "license-transferred-seller",
      dedupeKey: `transfer-done-seller:${found.id}`,
    });
    return { oldKey: l.key, licenseId: l.id, newKey, released: released.count, queued };
  });
  licenseCache().invalidate(result.oldKey);
  kickOutbox();
  if (result.queued) kickWebhooks();
  return { license_id: result.licenseId, license_key: result.newKey, released_machines: result.released };
}

/**
 * For My licenses: per license of the buyer, the order whose invoice it has, the invoice's billing details, whether
 * it may be transferred now (or why not, as a code), and its pending offer.
 */
export async function licenseExtras(buyerEmail: string, licenseIds: readonly string[], now = new Date()) {
  const email = lower(buyerEmail);
  const db = getDb();
  const licenses = await db.license.findMany({ where: { id: { in: [...licenseIds] }, buyerEmail: email }, select: eligibilitySelect });
  const orderIds = (
    await db.license.findMany({
      where: { id: { in: [...licenseIds] }, buyerEmail: email },
      select: { id: true, orderId: true, order: { select: { status: true } } },
    })
  ).flatMap((l) => (l.orderId && l.order?.status === "paid" ? [[l.id, l.orderId] as const] : []));
  const invoices = new Map(
    (
      await db.invoice.findMany({
        where: { orderId: { in: orderIds.map(([, o]) => o) }, buyerEmail: email },
        select: { orderId: true, number: true, billingName: true, billingAddress: true, billingCountry: true, billingVatId: true },
      })
    ).map((i) => [i.orderId, i]),
  );
  const pending = new Map(
    (
      await db.licenseTransfer.findMany({
        where: { licenseId: { in: [...licenseIds] }, fromEmail: email, status: "pending", expiresAt: { gt: now } },
      })
    ).map((t) => [t.licenseId, view(t)]),
  );
  const orders = new Map(orderIds);
  return new Map(
    licenses.map((l) => {
      const orderId = orders.get(l.id) ?? null;
      // An invoice that exists only once the order is numbered: orders paid before numbering get theirs on download.
      const invoice = orderId ? (invoices.get(orderId) ?? null) : null;
      return [l.id, { orderId, invoice, transferRefusal: refusal(l, now)?.code ?? null, pending: pending.get(l.id) ?? null }] as const;
    }),
  );
}

/** The offer a link's token names, for the page that accepts it (null: no such offer). */
export async function transferByToken(token: string) {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const t = await getDb().licenseTransfer.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!t) return null;
  const license = await getDb().license.findUnique({
    where: { id: t.licenseId },
    select: { product: { select: { name: true, developer: { select: { name: true } } } } },
  });
  return {
    fromEmail: t.fromEmail,
    toEmail: t.toEmail,
    status: t.status,
    expiresAt: t.expiresAt,
    productName: license?.product.name ?? "",
    sellerName: license?.product.developer.name ?? "",
  };
}
