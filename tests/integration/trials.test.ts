import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as trials } from "@/app/api/trials/route";
import { disconnectDb, getDb } from "@/lib/db";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { issueLicense } from "@/lib/licensing/issue-license";
import { startTrial, TRIAL_MAILS_PER_ADDRESS_PER_HOUR, TRIAL_RESEND_INTERVAL_MS } from "@/lib/licensing/start-trial";
import { normaliseEmail } from "@/lib/licensing/trial-schemas";
import { call, expectProblem } from "../helpers/http";

// Issue 12, item 1: POST /api/trials used to answer with the trial key for any address, the same key again to anyone
// who asked for the same address (any case), unlimited trials for made-up addresses, and 409 already_licensed to
// tell anyone what an address had bought.

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
let product: { id: string; pluginId: string; trialDays: number; maxMachines: number };

beforeAll(async () => {
  product = await getDb().product.findFirstOrThrow({
    where: { status: "active", trialAvailable: true, trialDays: { gt: 0 } },
    orderBy: { id: "asc" },
  });
  process.env.RATE_LIMIT_TRIAL_PER_HOUR = "1000000";
});
beforeEach(() => rateLimiter().reset());
afterAll(async () => {
  delete process.env.RATE_LIMIT_TRIAL_PER_HOUR;
  rateLimiter().reset();
  await disconnectDb();
});

const ask = (buyer_email: string, client = "198.51.100.40", product_id = product.id) =>
  call(trials, "/api/trials", { method: "POST", json: { product_id, buyer_email }, headers: { [CLIENT_ADDRESS_HEADER]: client } });

const trialOf = (email: string) => getDb().license.findMany({ where: { trialOf: `${product.id}:${normaliseEmail(email)}` } });
const trialMails = (to: string) => getDb().emailMessage.findMany({ where: { to, kind: "trial" }, orderBy: { createdAt: "asc" } });

describe("POST /api/trials never hands the key to the caller", () => {
  it("the victim's key is in no anonymous answer: new, repeated, upper-case, dotted and +tag variants", async () => {
    const victim = `victim.${run}@gmail.com`;
    const variants = [
      victim,
      victim,
      victim.toUpperCase(),
      `victim.${run}+attacker@gmail.com`,
      `vic.tim${run}@gmail.com`,
      `VICTIM${run}+x@googlemail.com`,
    ];
    const replies = [];
    for (const v of variants) replies.push(await ask(v));
    const licenses = await trialOf(victim);
    expect(licenses).toHaveLength(1); // every variant is the same mailbox: one trial
    const key = licenses[0]!.key;
    for (const r of replies) {
      expect(r.status, r.text).toBe(202);
      expect(r.text).not.toContain(key);
      expect(r.text).not.toMatch(/[0-9A-Z]{4}(-[0-9A-Z]{4}){3}/);
      expect(r.body).not.toHaveProperty("license_key");
      expect(r.body).not.toHaveProperty("created");
    }
    // The key went to the address the trial was started for, once (asking again within the interval sends nothing).
    const mails = await trialMails(victim);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain(key);
    expect(mails[0]!.html).toContain(key);
    expect(mails[0]!.text).toContain(`/downloads/${product.id}?t=${licenses[0]!.id}.`); // the license-gated download link
    for (const v of new Set(variants.map((x) => x.toLowerCase()).filter((x) => x !== victim))) expect(await trialMails(v)).toHaveLength(0);
  });

  it("answers new, existing and already-bought addresses with the same status and the same bytes", async () => {
    const fresh = `new-${run}@example.com`;
    const buyer = `bought-${run}@example.com`;
    await issueLicense(getDb(), { productId: product.id, buyerEmail: buyer, maxMachines: product.maxMachines, source: "purchase" });

    const first = await ask(fresh);
    const repeat = await ask(fresh);
    const owned = await ask(buyer);
    const ownedUpper = await ask(buyer.toUpperCase());
    for (const r of [first, repeat, owned, ownedUpper]) {
      expect(r.status, r.text).toBe(202);
      expect(r.headers.get("content-type")).toBe(first.headers.get("content-type"));
      expect(r.text).toBe(first.text);
    }
    expect(first.body).toMatchObject({
      accepted: true,
      trial: true,
      product_id: product.id,
      plugin_id: product.pluginId,
      trial_days: product.trialDays,
    });
    expect(first.body.message).toEqual(expect.any(String));
    expect(owned.text).not.toMatch(/already|licen[cs]ed|bought/i);

    // The buyer got no trial, only a note; the new address got its key by mail.
    expect(await trialOf(buyer)).toHaveLength(0);
    const note = await trialMails(buyer);
    expect(note).toHaveLength(1);
    expect(note[0]!.subject).toMatch(/already own/i);
    const [license] = await trialOf(fresh);
    expect((await trialMails(fresh)).map((m) => m.text.includes(license!.key))).toEqual([true]);
  });

  it("re-sends an existing trial's key at most once per interval, and caps trial mail per address", async () => {
    const email = `resend-${run}@example.com`;
    const start = Math.floor(Date.now() / TRIAL_RESEND_INTERVAL_MS) * TRIAL_RESEND_INTERVAL_MS + 1000; // early in a window
    const first = await startTrial({ productId: product.id, buyerEmail: email }, start);
    expect(first).toMatchObject({ outcome: "created", mailed: true });
    expect(await startTrial({ productId: product.id, buyerEmail: email }, start + 1000)).toMatchObject({ outcome: "existing", mailed: false });
    const later = await startTrial({ productId: product.id, buyerEmail: email }, start + TRIAL_RESEND_INTERVAL_MS + 1000);
    expect(later).toMatchObject({ outcome: "existing", mailed: true });
    expect(later.license?.key).toBe(first.license?.key);
    // Six intervals within the hour would be six mails; the per-address cap stops at five.
    const more = [];
    for (let i = 2; i <= 5; i++)
      more.push(await startTrial({ productId: product.id, buyerEmail: email }, start + i * TRIAL_RESEND_INTERVAL_MS + 1000));
    expect(more.map((r) => r.mailed)).toEqual([true, true, true, false]);
    const mails = await trialMails(email);
    expect(mails).toHaveLength(TRIAL_MAILS_PER_ADDRESS_PER_HOUR);
    expect(mails.every((m) => m.text.includes(first.license!.key))).toBe(true);
  });

  it("refuses addresses under reserved, undeliverable domains with a clear 400; example.com stays usable", async () => {
    for (const bad of ["nobody@invalid.invalid", `x-${run}@shop.test`, "a@foo.example", "root@box.localhost", "me@printer.local"]) {
      const r = await ask(bad);
      expectProblem(r, 400, "invalid_body");
      expect(r.text).toMatch(/cannot receive mail/);
    }
    expect((await ask(`ok-${run}@example.com`)).status).toBe(202);
    expect(await getDb().license.count({ where: { buyerEmail: "nobody@invalid.invalid" } })).toBe(0);
  });

  it("limits trials per client address per hour (RATE_LIMIT_TRIAL_PER_HOUR): the (N+1)th is refused with 429", async () => {
    process.env.RATE_LIMIT_TRIAL_PER_HOUR = "3";
    try {
      const client = "203.0.113.77";
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await ask(`throwaway-${run}-${i}@example.com`, client));
      expect(replies.slice(0, 3).map((r) => r.status)).toEqual([202, 202, 202]);
      expectProblem(replies[3]!, 429, "rate_limited");
      expect(Number(replies[3]!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await getDb().license.count({ where: { buyerEmail: `throwaway-${run}-3@example.com` } })).toBe(0);
      // Another client is not affected.
      expect((await ask(`other-${run}@example.com`, "203.0.113.78")).status).toBe(202);
    } finally {
      process.env.RATE_LIMIT_TRIAL_PER_HOUR = "1000000";
    }
  });
});

describe("normaliseEmail", () => {
  it("lower-cases every address and drops provider dots and tags only where the provider ignores them", () => {
    expect(normaliseEmail(" Jane.Doe+News@GMail.com ")).toBe("janedoe@gmail.com");
    expect(normaliseEmail("jane.doe@googlemail.com")).toBe("janedoe@gmail.com");
    expect(normaliseEmail("Jane.Doe+x@outlook.com")).toBe("jane.doe@outlook.com");
    expect(normaliseEmail("jane+x@icloud.com")).toBe("jane@icloud.com");
    expect(normaliseEmail("jane+x@proton.me")).toBe("jane@proton.me");
    expect(normaliseEmail("jane-shopping@yahoo.com")).toBe("jane@yahoo.com");
    expect(normaliseEmail("Jane.Doe+x@Example.COM")).toBe("jane.doe+x@example.com"); // unknown provider: case only
    expect(normaliseEmail("+x@gmail.com")).toBe("+x@gmail.com"); // nothing before the tag: left alone
  });
});
