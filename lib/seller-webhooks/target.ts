import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { env, liveSetting } from "../env.ts";
import { AppError } from "../http/errors.ts";

/**
 * Where a seller's webhook may point. A webhook is a request this service makes on a seller's behalf, so a URL naming
 * our own network (the cloud metadata service at 169.254.169.254, a database on 10.x, the admin port on localhost)
 * would let any seller reach it (SSRF). Refused, unless the operator sets WEBHOOK_ALLOW_PRIVATE=on:
 * - credentials in the URL, more than 2000 characters, a scheme other than https (http too outside production or
 *   with WEBHOOK_ALLOW_PRIVATE=on);
 * - the host `localhost` (and `*.localhost`), and any host that is, or resolves to, an address that is not public:
 *   EVERY address the name resolves to must be public, not just the first.
 * IPv4 in decimal, octal or hex spellings (`0x7f.1`, `2130706433`) is normalised by the URL parser before the check.
 * The check runs when an endpoint is saved and again at each delivery, and the delivery connects to the address that
 * passed that check (the `lookup` below), so a name that re-resolves between check and connect (DNS rebinding) gains
 * nothing.
 *
 * The same rules, and the same setting, hold for the other request a seller makes us send: fetching a product image
 * given by URL (getFromTarget, used by lib/selling/uploads.ts), each redirect checked again.
 */

const TARGET_REFUSED = "webhook_target_refused";
const MAX_URL_LENGTH = 2000;

const allowPrivate = () => liveSetting("WEBHOOK_ALLOW_PRIVATE") === "on";

/* ----------------------------------------------------------------------------------------------------------- */
/* Address classification                                                                                        */

function v4ToInt(ip: string): number {
  const [a = 0, b = 0, c = 0, d = 0] = ip.split(".").map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

const V4_RANGES: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified (this network)"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT (shared)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignment"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"],
];

function classifyV4(ip: string): string | null {
  const n = v4ToInt(ip);
  for (const [base, bits, reason] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0) return reason;
  }
  return null;
}

/** An IPv6 address as eight 16-bit groups (an embedded dotted IPv4 tail included); null when it is not one. */
function v6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const n = v4ToInt(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const part = (s: string | undefined) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0) return null;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const v4Of = (hi: number, lo: number) => `${hi >>> 8}.${hi & 0xff}.${lo >>> 8}.${lo & 0xff}`;

function classifyV6(ip: string): string | null {
  const g = v6Groups(ip);
  if (!g) return "not an address";
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return "unspecified";
  if (zeroTo(7) && g7 === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d): the IPv4 address is what is reached.
  if (zeroTo(5) && g5 === 0xffff) return embedded(classifyV4(v4Of(g6, g7)));
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return embedded(classifyV4(v4Of(g6, g7)));
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::a.b.c.d): the embedded IPv4 address decides.
  if (zeroTo(6)) return embedded(classifyV4(v4Of(g6, g7)) ?? "IPv4-compatible");
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embedded(classifyV4(v4Of(g6, g7)));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "local-use NAT64";
  // 6to4 (2002:aabb:ccdd::): the IPv4 address in the second and third groups.
  if (g0 === 0x2002) return embedded(classifyV4(v4Of(g1, g2)));
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation";
  if ((g0 & 0xfff0) === 0x3ff0) return "documentation";
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "discard-only";
  if (g0 === 0x2001 && g1 < 0x0200) return "IETF protocol assignment (Teredo, ORCHID, …)";
  // Everything else outside global unicast 2000::/3 is reserved.
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  return null;
}

const embedded = (reason: string | null) => (reason === null ? null : `${reason} (IPv4 inside IPv6)`);

/**
 * Why an address may not receive webhooks ("loopback", "private", "link-local", …), or null when it is a public
 * unicast address. Anything that is not an IP address is refused ("not an address").
 */
export function nonPublicReason(address: string): string | null {
  const ip = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(ip.includes("%") ? ip.slice(0, ip.indexOf("%")) : ip);
  if (family === 4) return classifyV4(ip);
  if (family === 6) return classifyV6(ip);
  return "not an address";
}

/* ----------------------------------------------------------------------------------------------------------- */
/* URL checks                                                                                                    */

const refuse = (why: string, what = "webhook URL") => new AppError(TARGET_REFUSED, 400, `This ${what} is refused: ${why}.`);

/**
 * The checks that need no DNS: scheme, credentials, length, and a host that is `localhost` or a non-public IP. `what`
 * names the URL in the refusal ("webhook URL", "image URL").
 */
function parseTarget(raw: string, what = "webhook URL"): URL {
  if (raw.length > MAX_URL_LENGTH) throw refuse(`it is longer than ${MAX_URL_LENGTH} characters`, what);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("it is not a URL", what);
  }
  const plain = allowPrivate() || env().NODE_ENV !== "production";
  if (url.protocol !== "https:" && !(plain && url.protocol === "http:"))
    throw refuse(plain ? "it must be an http or https URL" : "it must be an https URL", what);
  if (url.username || url.password) throw refuse("it must not contain a user name or password", what);
  if (url.hash) throw refuse("it must not contain a #fragment", what);
  if (allowPrivate()) return url;
  const host = hostOf(url);
  if (host === "localhost" || host.endsWith(".localhost")) throw refuse("its host is localhost", what);
  if (isIP(host)) {
    const reason = nonPublicReason(host);
    if (reason) throw refuse(`${host} is a ${reason} address`, what);
  }
  return url;
}

/** The URL's host as connected to: without IPv6 brackets or a trailing dot, lower case (the URL parser normalised it). */
const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();

const resolveAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * What a seller is told when a host name is refused after resolving: one answer whether the name does not resolve or
 * resolves to an address that is not public, so the refusal cannot map the deployment's internal names (which exist,
 * and what they point to). The detail goes to the log only.
 */
const NOT_PUBLIC_NAME = "its host does not resolve to public addresses only";

/** The addresses of a host name, or why not to use them (`why` for the seller, `detail` for the log). */
async function resolvePublic(host: string): Promise<{ ok: true; addresses: LookupAddress[] } | { ok: false; why: string; detail: string }> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return { ok: false, why: NOT_PUBLIC_NAME, detail: `${host} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, why: NOT_PUBLIC_NAME, detail: `${host} does not resolve` };
  if (allowPrivate()) return { ok: true, addresses };
  for (const a of addresses) {
    const reason = nonPublicReason(a.address);
    if (reason) return { ok: false, why: NOT_PUBLIC_NAME, detail: `${host} resolves to ${a.address}, a ${reason} address` };
  }
  return { ok: true, addresses };
}

/** The log line of a refused name: the operator may see what it resolved to; the seller is not told. */
function logRefusedName(detail: string): void {
  console.warn(JSON.stringify({ level: "warn", event: "webhook_target_refused", detail }));
}

/**
 * Checks a webhook URL as a seller saves it; throws 400 `webhook_target_refused` naming why. Returns the URL as the
 * parser normalised it (what is stored and posted to).
 */
export async function checkWebhookTarget(raw: string): Promise<string> {
  const url = parseTarget(raw);
  const host = hostOf(url);
  if (!isIP(host)) {
    const resolved = await resolvePublic(host);
    if (!resolved.ok) {
      logRefusedName(resolved.detail);
      throw refuse(resolved.why);
    }
  }
  return url.toString();
}

/* ----------------------------------------------------------------------------------------------------------- */
/* Delivery                                                                                                      */

export type TargetOutcome =
  { ok: true; status: number; durationMs: number } | { ok: false; status: number | null; error: string; durationMs: number };

/**
 * The connection's lookup: resolves the name, refuses it if any address is not public, and hands the socket the
 * checked addresses, so the connection goes exactly where the check looked (no second resolution to rebind).
 */
const pinnedLookup: LookupFunction = (hostname, options, callback) => {
  void resolvePublic(hostname.replace(/\.$/, "")).then((r) => {
    if (!r.ok) {
      logRefusedName(r.detail);
      callback(Object.assign(new Error(`refused: ${r.why}`), { code: "EWEBHOOKTARGET" }), "", 0);
      return;
    }
    const wanted = options.family === 4 || options.family === 6 ? r.addresses.filter((a) => a.family === options.family) : r.addresses;
    const list = wanted.length ? wanted : r.addresses;
    if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    else callback(null, list[0]?.address ?? "", list[0]?.family ?? 4);
  });
};

/**
 * POSTs a body to a seller's endpoint, with the target checked again now and the connection pinned to the checked
 * address. Redirects are not followed (a 3xx is a failed attempt); the answer's first 300 bytes name an error.
 */
export function postToTarget(raw: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<TargetOutcome> {
  const started = performance.now();
  const took = () => Math.max(0, Math.round(performance.now() - started));
  let url: URL;
  try {
    url = parseTarget(raw);
  } catch (error) {
    return Promise.resolve({ ok: false, status: null, error: `not sent: ${(error as AppError).detail}`, durationMs: 0 });
  }
  return new Promise<TargetOutcome>((resolve) => {
    let settled = false;
    const done = (o: TargetOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        lookup: pinnedLookup,
        // One request per connection: nothing pooled outlives the check it was made under.
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          if (size < 300) chunks.push(c);
          size += c.length;
        });
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString("utf8").slice(0, 300);
          if (status >= 200 && status < 300) done({ ok: true, status, durationMs: took() });
          else done({ ok: false, status, error: `HTTP ${status}${text ? `: ${text}` : ""}`, durationMs: took() });
        });
        res.on("error", (e) => done({ ok: false, status: res.statusCode ?? null, error: e.message, durationMs: took() }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, status: null, error: `no answer within ${timeoutMs / 1000} s`, durationMs: took() });
    }, timeoutMs);
    req.on("error", (e: Error & { code?: string }) =>
      done({ ok: false, status: null, error: e.code === "EWEBHOOKTARGET" ? `not sent: ${e.message}` : e.message, durationMs: took() }),
    );
    req.end(body);
  });
}

export type TargetFetch =
  | { ok: true; bytes: Uint8Array; url: string }
  | {
      ok: false;
      /** `refused`: the URL (or a redirect's) broke the rules above; `too_large`: more than maxBytes; `failed`: anything else. */
      reason: "refused" | "too_large" | "failed";
      error: string;
      /** The HTTP status of an answer that was not a success (absent when none came, or for a refused redirect). */
      status?: number;
    };

/** Redirects a GET follows at most, each checked as the first URL was. */
const MAX_GET_REDIRECTS = 3;

/**
 * GETs a file a seller named (a product image given by URL) under the same rules as a webhook delivery: every URL,
 * the first and each redirect's (at most MAX_GET_REDIRECTS), is checked again (parseTarget) and connected to through
 * the address that passed the check (pinnedLookup), one request per connection. At most `maxBytes` are read: a larger
 * Content-Length, or a body that grows past it, ends the transfer. `timeoutMs` bounds the whole fetch, redirects
 * included. `what` names the URL in a refusal ("image URL").
 */
export function getFromTarget(
  raw: string,
  opts: {
    timeoutMs: number;
    maxBytes: number;
    accept?: string;
    what?: string;
    /** Refuse a redirect to another origin (a failure): what is fetched must come from the URL's own origin. */
    sameOrigin?: boolean;
  },
): Promise<TargetFetch> {
  const what = opts.what ?? "URL";
  return new Promise<TargetFetch>((resolve) => {
    let settled = false;
    let current: ClientRequest | undefined;
    const done = (o: TargetFetch) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      current?.destroy();
      resolve(o);
    };
    const timer = setTimeout(() => done({ ok: false, reason: "failed", error: `no answer within ${opts.timeoutMs / 1000} s` }), opts.timeoutMs);

    const hop = (target: string, redirectsLeft: number) => {
      let url: URL;
      try {
        url = parseTarget(target, what);
      } catch (error) {
        done({ ok: false, reason: "refused", error: (error as AppError).detail });
        return;
      }
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      const req: ClientRequest = send(
        url,
        {
          method: "GET",
          // No Accept-Encoding: the bytes read are the file's own, counted against maxBytes as they arrive.
          headers: { Accept: opts.accept ?? "*/*" },
          lookup: pinnedLookup,
          // One request per connection: nothing pooled outlives the check it was made under.
          agent: false,
        },
        (res: IncomingMessage) => {
          if (req !== current) return;
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400 && res.headers.location) {
            let next: string;
            try {
              next = new URL(res.headers.location, url).toString();
            } catch {
              done({ ok: false, reason: "failed", error: "redirected to something that is not a URL" });
              return;
            }
            if (opts.sameOrigin && new URL(next).origin !== url.origin) {
              done({ ok: false, reason: "failed", error: `redirected to another origin (${new URL(next).origin})` });
              return;
            }
            if (redirectsLeft <= 0) {
              done({ ok: false, reason: "failed", error: `more than ${MAX_GET_REDIRECTS} redirects` });
              return;
            }
            req.destroy();
            hop(next, redirectsLeft - 1);
            return;
          }
          if (status < 200 || status >= 300) {
            done({ ok: false, reason: "failed", error: `HTTP ${status}`, status });
            return;
          }
          const declared = Number(res.headers["content-length"]);
          if (Number.isFinite(declared) && declared > opts.maxBytes) {
            done({ ok: false, reason: "too_large", error: `${declared} bytes, more than ${opts.maxBytes}` });
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > opts.maxBytes) done({ ok: false, reason: "too_large", error: `more than ${opts.maxBytes} bytes` });
            else chunks.push(c);
          });
          res.on("end", () => done({ ok: true, bytes: new Uint8Array(Buffer.concat(chunks)), url: url.toString() }));
          res.on("error", (e) => {
            if (req === current) done({ ok: false, reason: "failed", error: e.message });
          });
        },
      );
      current = req;
      req.on("error", (e: Error & { code?: string }) => {
        // A request left for a redirect's may still report its end: only the current one's errors count.
        if (req !== current) return;
        if (e.code === "EWEBHOOKTARGET") done({ ok: false, reason: "refused", error: `This ${what} is ${e.message}.` });
        else done({ ok: false, reason: "failed", error: e.message });
      });
      req.end();
    };
    hop(raw, MAX_GET_REDIRECTS);
  });
}
