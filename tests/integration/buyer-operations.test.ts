import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { runOperation } from "@/lib/transports/action";
import { operationById } from "@/lib/operations/index";
import { fingerprint } from "../helpers/licenses";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * The buyer's operations (lib/operations/buyer.ts), run as My licenses' server actions run them: through
 * runOperation(), with the request's headers as Next gives them to an action. Only the session's e-mail decides whose
 * license a call touches (another buyer's is a 404, however it is named), releases and their undo work, reviews are
 * posted and edited, and the registry's guarantees hold: no session is a 401, a write from another origin a 403, the
 * per-buyer write limit a 429. The page's own adapters are called too, for what they make of the answers.
 */

const request = { headers: new Headers() };
vi.mock("next/headers", () => ({ headers: () => Promise.resolve(request.headers) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ORIGIN = "http://localhost:3000";
const buyers = { a: `buyer-ops-a-${run}@example.com`, b: `buyer-ops-b-${run}@example.com` };
const cookies = { a: "", b: "", seller: "" };
const fx = { product: "", pluginId: `com.buyerops.app${run}`, licenseA: "", keyA: "", licenseB: "", keyB: "" };
let seq = 0;

async function cookieOf(email: string, purpose: "buyer" | "seller"): Promise<string> {
  await requestSignIn({ email, purpose });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return `${session.cookieName}=${session.cookieValue}`;
}

/** The request an action runs in: this buyer's cookie, from our own page unless said otherwise. */
function as(cookie: string, origin: string | null = ORIGIN): void {
  const h = new Headers({ [CLIENT_ADDRESS_HEADER]: "198.51.100.41" });
  if (cookie) h.set("cookie", cookie);
  if (origin) h.set("origin", origin);
  request.headers = h;
}

async function machineOn(key: string): Promise<{ id: string; fingerprint: string }> {
  const fp = fingerprint(`buyer-ops-${run}-${++seq}`);
  const r = await activateMachine({ license_key: key, machine_fingerprint: fp, plugin_id: fx.pluginId });
  expect(r.activated).toBe(true);
  const row = await getDb().activation.findFirstOrThrow({ where: { fingerprint: fp }, select: { id: true } });
  return { id: row.id, fingerprint: fp };
}

const machines = (licenseId: string) => getDb().activation.count({ where: { licenseId } });

beforeAll(async () => {
  const email = `buyer-ops-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Buyer Ops ${run}`, website: null, bio: "" });
  await getDb().developer.update({ where: { id: dev.id }, data: { refundPolicy: "Refunds within 14 days.", supportEmail: email } });
  fx.product = (await createTestProduct(dev.id, `Buyer Ops ${run}`, fx.pluginId, { max_machines: 3 })).id;
  const issue = (buyerEmail: string) => issueLicense(getDb(), { productId: fx.product, buyerEmail, maxMachines: 20, source: "purchase" });
  const [a, b] = [await issue(buyers.a), await issue(buyers.b)];
  Object.assign(fx, { licenseA: a.id, keyA: a.key, licenseB: b.id, keyB: b.key });
  cookies.a = await cookieOf(buyers.a, "buyer");
  cookies.b = await cookieOf(buyers.b, "buyer");
  cookies.seller = await cookieOf(email, "seller");
});

beforeEach(() => {
  rateLimiter().reset();
});

afterAll(async () => {
  delete process.env.RATE_LIMIT_WRITE_PER_MIN;
  resetEnv();
  rateLimiter().reset();
  await disconnectDb();
});

describe("the buyer's operations", () => {
  it("are the My licenses page's: no REST route, no tool, buyer auth, writes", () => {
    for (const id of ["buyerReleaseMachine", "buyerRestoreMachine", "buyerSaveReview"]) {
      const op = operationById(id);
      expect(op.auth, id).toBe("buyer");
      expect(op.http, id).toBeUndefined();
      expect(op.tools ?? [], id).toEqual([]);
      expect(op.readOnly, id).toBe(false);
    }
  });

  it("release a machine of the buyer's own license, and undo the release", async () => {
    const m = await machineOn(fx.keyA);
    const before = await machines(fx.licenseA);
    as(cookies.a);
    const released = await runOperation<{ machine_id: string; active_machines: number; undo_until: string }>("buyerReleaseMachine", {
      params: { id: fx.licenseA, machine_id: m.id },
    });
    expect(released.ok, JSON.stringify(released)).toBe(true);
    if (!released.ok) throw new Error("the release was refused");
    expect(released.output).toMatchObject({ machine_id: m.id, active_machines: before - 1 });
    expect(Date.parse(released.output.undo_until)).toBeGreaterThan(Date.now());
    expect(await machines(fx.licenseA)).toBe(before - 1);
    const event = await getDb().licenseEvent.findFirstOrThrow({
      where: { licenseId: fx.licenseA, type: "released" },
      orderBy: { createdAt: "desc" },
    });
    expect(event).toMatchObject({ actorType: "buyer", actor: buyers.a });

    // Released already: not on the license any more.
    const again = await runOperation("buyerReleaseMachine", { params: { id: fx.licenseA, machine_id: m.id } });
    expect(again).toMatchObject({ ok: false, problem: { status: 404, code: "activation_not_found" } });

    const restored = await runOperation("buyerRestoreMachine", { params: { id: fx.licenseA, machine_id: m.id } });
    expect(restored).toEqual({ ok: true, output: { restored: true } });
    expect(await getDb().activation.findUnique({ where: { id: m.id }, select: { fingerprint: true } })).toEqual({ fingerprint: m.fingerprint });
    // A repeated undo changes nothing.
    expect(await runOperation("buyerRestoreMachine", { params: { id: fx.licenseA, machine_id: m.id } })).toEqual({
      ok: true,
      output: { restored: false },
    });
  });

  it("touch only the session's own licenses: another buyer's license is a 404 however it is named", async () => {
    const theirs = await machineOn(fx.keyB);
    const mine = await machineOn(fx.keyA);
    as(cookies.a);
    // Their license and their machine; my license with their machine; their license with my machine.
    for (const params of [
      { id: fx.licenseB, machine_id: theirs.id },
      { id: fx.licenseA, machine_id: theirs.id },
      { id: fx.licenseB, machine_id: mine.id },
      { id: "not-a-license", machine_id: "not-yours" },
    ]) {
      const r = await runOperation("buyerReleaseMachine", { params });
      expect(r, JSON.stringify(params)).toMatchObject({ ok: false, problem: { status: 404 } });
    }
    expect(await getDb().activation.findUnique({ where: { id: theirs.id } })).not.toBeNull();

    // Buyer B releases their own machine; buyer A cannot undo it.
    as(cookies.b);
    expect((await runOperation("buyerReleaseMachine", { params: { id: fx.licenseB, machine_id: theirs.id } })).ok).toBe(true);
    as(cookies.a);
    expect(await runOperation("buyerRestoreMachine", { params: { id: fx.licenseB, machine_id: theirs.id } })).toMatchObject({
      ok: false,
      problem: { status: 404, code: "license_not_found" },
    });
    expect(await getDb().activation.findUnique({ where: { id: theirs.id } })).toBeNull();

    // Nor review with it.
    expect(await runOperation("buyerSaveReview", { body: { license_id: fx.licenseB, rating: 1, title: "Not mine" } })).toMatchObject({
      ok: false,
      problem: { status: 404, code: "license_not_found" },
    });
    expect(await getDb().review.count({ where: { licenseId: fx.licenseB } })).toBe(0);
  });

  it("post a review of the buyer's license, then edit it", async () => {
    as(cookies.a);
    const posted = await runOperation<{ created: boolean; review: { id: string; rating: number; author_name: string } }>("buyerSaveReview", {
      body: { license_id: fx.licenseA, rating: 4, title: "Does the job", body: "Two\r\nlines.", author_name: "" },
    });
    expect(posted.ok, JSON.stringify(posted)).toBe(true);
    if (!posted.ok) throw new Error("the review was refused");
    expect(posted.output).toMatchObject({ created: true, review: { rating: 4, author_name: "Verified buyer" } });
    const edited = await runOperation<{ created: boolean; review: { id: string; rating: number; title: string; author_name: string } }>(
      "buyerSaveReview",
      { body: { license_id: fx.licenseA, rating: 5, title: "Better than I said", author_name: "Robin" } },
    );
    expect(edited).toMatchObject({
      ok: true,
      output: { created: false, review: { id: posted.output.review.id, rating: 5, title: "Better than I said", author_name: "Robin" } },
    });
    expect(await getDb().review.count({ where: { licenseId: fx.licenseA } })).toBe(1);
  });

  it("refuse a bad review field by field, as a 400 whose errors name the fields", async () => {
    as(cookies.a);
    const r = await runOperation("buyerSaveReview", { body: { license_id: fx.licenseA, title: "x".repeat(500) } });
    expect(r.ok).toBe(false);
    if (r.ok) throw new Error("the bad review was accepted");
    expect(r.problem).toMatchObject({ status: 400, code: "invalid_body" });
    expect(r.problem.extra.errors?.map((e) => e.name).sort()).toEqual(["rating", "title"]);
  });

  it("need the buyer's session (a seller's is not one), and our own origin for a write", async () => {
    const m = await machineOn(fx.keyA);
    for (const cookie of ["", cookies.seller]) {
      as(cookie);
      expect(await runOperation("buyerReleaseMachine", { params: { id: fx.licenseA, machine_id: m.id } })).toMatchObject({
        ok: false,
        problem: { status: 401, code: "unauthorized" },
      });
    }
    as(cookies.a, "https://evil.example");
    for (const [id, call] of [
      ["buyerReleaseMachine", { params: { id: fx.licenseA, machine_id: m.id } }],
      ["buyerRestoreMachine", { params: { id: fx.licenseA, machine_id: m.id } }],
      ["buyerSaveReview", { body: { license_id: fx.licenseA, rating: 1, title: "Forged" } }],
    ] as const) {
      expect(await runOperation(id, call), id).toMatchObject({ ok: false, problem: { status: 403, code: "cross_site_request" } });
    }
    expect(await getDb().activation.findUnique({ where: { id: m.id } })).not.toBeNull();
    expect(await getDb().review.count({ where: { licenseId: fx.licenseA, title: "Forged" } })).toBe(0);
  });

  it("count against a per-buyer write limit: one buyer's budget is not another's", async () => {
    process.env.RATE_LIMIT_WRITE_PER_MIN = "2";
    resetEnv();
    try {
      const review = (license_id: string) => runOperation("buyerSaveReview", { body: { license_id, rating: 3, title: `Limit ${run}` } });
      as(cookies.a);
      expect((await review(fx.licenseA)).ok).toBe(true);
      expect((await review(fx.licenseA)).ok).toBe(true);
      expect(await review(fx.licenseA)).toMatchObject({ ok: false, problem: { status: 429, code: "rate_limited" } });
      // Another operation has its own budget, another buyer too.
      const m = await machineOn(fx.keyA);
      expect((await runOperation("buyerReleaseMachine", { params: { id: fx.licenseA, machine_id: m.id } })).ok).toBe(true);
      as(cookies.b);
      expect((await review(fx.licenseB)).ok).toBe(true);
    } finally {
      delete process.env.RATE_LIMIT_WRITE_PER_MIN;
      resetEnv();
    }
  });
});

describe("My licenses' actions over them", () => {
  it("release and undo with JavaScript answer the page's messages; another buyer's machine is 'not on this license'", async () => {
    const { releaseMachineNow, restoreMachineNow } = await import("@/app/(store)/licenses/actions");
    const m = await machineOn(fx.keyA);
    as(cookies.a);
    expect(await releaseMachineNow(fx.licenseA, m.id)).toEqual({ ok: true, message: "Machine released. Its seat is free." });
    expect(await restoreMachineNow(fx.licenseA, m.id)).toEqual({ ok: true, message: "Release undone: the machine is back." });
    expect(await releaseMachineNow(fx.licenseB, m.id)).toEqual({ ok: false, message: "That machine is not on this license any more." });
    expect(await restoreMachineNow(fx.licenseB, m.id)).toEqual({ ok: false, message: "That license is not yours." });
    as("");
    expect(await releaseMachineNow(fx.licenseA, m.id)).toEqual({ ok: false, message: "Your session has ended. Sign in again to release a machine." });
    // Arguments a browser could not have sent: a 400, not a TypeError.
    await expect(releaseMachineNow(42, undefined)).rejects.toMatchObject({ status: 400, code: "invalid_action_arguments" });
  });

  it("the form without JavaScript comes back with a notice, or to sign-in when the session ended", async () => {
    const { releaseMachine } = await import("@/app/(store)/licenses/actions");
    const m = await machineOn(fx.keyA);
    const post = (fields: Record<string, string>) => {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) fd.set(k, v);
      return releaseMachine(fd).then(
        () => "",
        (e: unknown) => String((e as { digest?: string }).digest ?? e),
      );
    };
    as(cookies.a);
    expect(await post({ license_id: fx.licenseA, activation_id: "not-yours" })).toContain("/licenses?notice=release_not_found");
    expect(await post({ license_id: fx.licenseA, activation_id: m.id })).toContain("/licenses?notice=released");
    as("");
    expect(await post({ license_id: fx.licenseA, activation_id: m.id })).toContain("/licenses?error=session_ended");
  });

  it("the review form shows each problem next to its field and keeps what was typed", async () => {
    const { saveReview } = await import("@/app/(store)/licenses/review-actions");
    const fd = new FormData();
    fd.set("license_id", fx.licenseA);
    fd.set("title", "Good\u0007");
    fd.set("body", "Fine.");
    fd.set("author_name", "Robin");
    as(cookies.a);
    const state = await saveReview({ message: null, errors: {}, values: {} }, fd);
    expect(state.values).toMatchObject({ title: "Good\u0007", body: "Fine.", author_name: "Robin" });
    // The first text holding a character that is not text is named (before the stars are looked at).
    expect(state.errors).toEqual({ title: ["Remove the special characters this text contains."] });
    fd.set("title", "Good");
    const missing = await saveReview({ message: null, errors: {}, values: {} }, fd);
    expect(missing.errors).toEqual({ rating: ["Choose from 1 to 5 stars."] });
    expect(missing.message).toBe("Please fix the problem marked below.");
  });
});
