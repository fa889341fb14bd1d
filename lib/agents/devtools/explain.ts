import { PRICING, platformFeeCents, formatPrice } from "../../pricing.ts";
import { table } from "./markdown.ts";
import { isLicensingTopic, LICENSING_TOPICS, OFFLINE_GRACE_DAYS, type LicensingTopic } from "./options.ts";

/**
 * Explanations of licensing topics for developers integrating this service. Pure: the text refers to endpoints by
 * path, so it holds for every deployment.
 */

const fee = PRICING.transaction_fee_percent;
const example = 4900;

const TOPICS: Record<LicensingTopic, () => string> = {
  machine_binding: () => `# Machine binding

A license key (\`XXXX-XXXX-XXXX-XXXX\`) allows \`max_machines\` machines. Each machine is identified by a **machine fingerprint**: the lowercase hex SHA-256 of the CPU brand string, a \`|\`, and an OS identifier:

${table(
  ["OS", "CPU brand", "OS identifier"],
  [
    ["Linux", "`model name` in `/proc/cpuinfo`", "`/etc/machine-id` (fallback `/var/lib/dbus/machine-id`)"],
    ["macOS", "`sysctl -n machdep.cpu.brand_string`", "`IOPlatformUUID` from `ioreg -rd1 -c IOPlatformExpertDevice`"],
    ["Windows", "`ProcessorNameString` under `HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0`", "`MachineGuid` under `HKLM\\SOFTWARE\\Microsoft\\Cryptography` (64-bit view)"],
  ],
)}

Hashing keeps the raw identifiers off the server; only the digest is sent and stored.

## The calls

- \`POST /activate\` \`{license_key, machine_fingerprint, plugin_id}\` takes a seat: \`ACTIVATED\`, or \`ALREADY_ACTIVATED\` when this machine already has one (idempotent: re-activating never takes a second seat). When every seat is taken the answer is \`TOO_MANY_MACHINES\` with \`active_machines\` and \`max_machines\`, so the app can say "active on 3 of 3 machines".
- \`POST /validate\` at every launch answers \`VALID\` only for an activated machine; \`NO_MACHINE\` (no machine at all yet) or \`FINGERPRINT_SCOPE_MISMATCH\` (other machines, not this one) mean "call /activate", which the generated integrations do automatically.
- \`POST /deactivate\` \`{license_key, machine_fingerprint}\` frees the seat at once (\`DEACTIVATED\`, or \`NOT_ACTIVATED\` when there was nothing to free). Buyers can also release machines themselves, so a dead laptop never needs a support ticket.

Seats are taken by one conditional update inside the activation's transaction, so concurrent activations can never exceed \`max_machines\`.

## Practical advice

- Keep the fingerprint recipe stable across versions of your app: a different digest is a different machine and takes another seat.
- Cloned VM images and some containers share \`/etc/machine-id\`; they will count as one machine. That is usually what you want for a reinstall, and a reason to keep \`max_machines\` generous (2–3) for desktop software.
- Replacing the CPU or reinstalling Windows changes the fingerprint: offer a "Release this machine" action in your settings or uninstaller that calls \`/deactivate\`.
- Rate limits: \`/activate\` + \`/deactivate\` 60 per minute per client address, \`/validate\` 600, and 120 per key; errors are 429 with \`Retry-After\`.
`,

  offline_validation: () => `# Offline validation

Licensed apps should keep working on a plane. Today's scheme is **cache and grace**:

1. At every launch the app calls \`POST /validate\`. On \`VALID\` it stores the answer locally with a timestamp (and the fingerprint and key it was for).
2. When the server cannot be reached (network error, timeout, HTTP 5xx, or 429 with a long \`Retry-After\`), the app keeps running on the last good validation for up to **${OFFLINE_GRACE_DAYS} days**, and tells the user how many days are left.
3. As soon as it is online again it re-validates; a definitive answer (\`REVOKED\`, \`EXPIRED\`, \`TRIAL_EXPIRED\`, \`NOT_FOUND\`) ends the grace immediately and clears the cache.

The generated integrations (\`generate_license_integration\`) implement exactly this, and also refuse the grace when the clock has been set back before the last validation, when the cached answer belongs to another machine, or when the license's own \`expires_at\` has passed in the meantime.

## Signed receipts

For a proof that outlives one launch, fetch a receipt: \`GET /api/receipt?key=XXXX-XXXX-XXXX-XXXX\` returns \`{receipt, signature, verify_url, verify_method}\`. The signature is HMAC-SHA256 over the RFC 8785 canonical JSON of \`receipt\` (license, product, \`max_machines\`, \`is_active\`, \`expires_at\`, \`checked_at\`). Anyone can check it with \`POST /api/receipt\` \`{receipt, signature}\` → \`{valid, still_active, receipt_age_seconds}\`, which is useful for support tools, resellers and AI agents. Because the HMAC secret stays on the server, verifying a receipt needs the service; the app cannot verify it alone.

## What comes next

The next step is **signed offline license files**: a license document signed with the service's Ed25519 key, which the app verifies locally with the public key published in the service's did:web document (\`GET /.well-known/did.json\`). That public key is safe to embed in the binary. Until then, choose the grace period to match your users: ${OFFLINE_GRACE_DAYS} days suits laptops that travel; shorten it for subscription-like licenses.

- Cache: last good validation + timestamp, per key and fingerprint.
- Grace: ${OFFLINE_GRACE_DAYS} days, a constant in the generated code.
- Receipts: \`GET /api/receipt\`, verified by \`POST /api/receipt\`.
- Public key for future offline files: \`/.well-known/did.json\`.
`,

  trial_keys: () => `# Trial keys

A trial is an ordinary license with an end date. Products that offer trials hand one out per e-mail address and product:

- \`POST /api/trials\` \`{product_id, buyer_email}\` → \`{license_key, product_id, plugin_id, trial: true, trial_days, expires_at, created}\`. Asking again with the same address returns the same trial (\`created: false\`), so a user cannot restart the clock by asking twice.
- The app activates and validates a trial key exactly like a paid one. \`POST /validate\` answers \`VALID\` with \`trial: true\` and \`trial_days_remaining\` (whole days, rounded up): show "12 days left" in the title bar or about box.
- When the end date passes, validation answers \`TRIAL_EXPIRED\` (a paid license that ends answers \`EXPIRED\`). The app should offer to buy: link to the product page or \`POST /api/checkout/create\`, and the paid key arrives by e-mail.
- The paid key is a different key. The generated integrations forget the trial key on \`TRIAL_EXPIRED\` and ask for a key at the next start.

## Tips

- Rate limits on trials: 30 trial and checkout starts per minute per client address.
- Don't give trials more seats than the paid license; a trial activated on one machine takes a seat of the trial, not of a later purchase.
- Offline grace applies to trials too, but never past the trial's own \`expires_at\`.

## Test keys are different

For automated tests of your app's error paths, \`generate_test_license_key\` makes keys in the right format that can never match a real key (they end in \`U\`, which the key alphabet never uses). \`/validate\` answers them \`NOT_FOUND\`; they are not trials.
`,

  key_revocation: () => `# Key revocation

A seller can revoke a license (for a refund, a chargeback or a leaked key) and reinstate it later. Revocation takes effect on the next call:

${table(
  ["Where", "What the app sees"],
  [
    ["`POST /validate`", "`valid: false`, code `REVOKED`"],
    ["`POST /activate`", "`activated: false`, code `REVOKED`: no new machines"],
    ["`POST /api/receipt` (verify)", "`valid: true` (the signature still matches) but `still_active: false`"],
    ["`GET /api/receipt?key=`", "a fresh receipt with `is_active: false`"],
  ],
)}

The revoked license keeps its list of machines, so the seller can see where it was used. With several instances behind a load balancer, an instance may serve its cached answer for up to \`LICENSE_CACHE_TTL_MS\` (10 s by default) after the change.

## What the app should do

- On \`REVOKED\`: stop, show "This license has been revoked by the seller", and delete the cached validation so the offline grace does not keep it alive. The generated integrations do this.
- A leaked key shows up as \`TOO_MANY_MACHINES\` before anything else; revoking it and issuing a new key to the real buyer is the fix.

## Limits to be honest about

- An app that never goes online keeps running for the ${OFFLINE_GRACE_DAYS}-day grace period after its last good validation; revocation cannot reach it sooner. Shorten the grace if that matters more to you than offline users.
- Client-side checks can be patched out of a binary (see \`anti_tamper\`); revocation is strongest for features that need the server anyway.
`,

  anti_tamper: () => `# Anti-tamper: what client-side checks can and cannot do

Any check that runs on the user's machine can be found and patched by a determined cracker; no obfuscator changes that. The goal is to make casual sharing inconvenient and keep honest users happy, not to be uncrackable.

## Worth doing

- **Never ship secrets in the binary.** Receipts are signed with HMAC-SHA256 using \`RECEIPT_SECRET\`, which stays on the server; that is why they are verified through \`POST /api/receipt\` rather than in the app. The Ed25519 **public** key in \`GET /.well-known/did.json\` is safe to embed: it can verify, not sign.
- **Check in more than one place.** Besides the startup check, re-read the cached outcome from a few unrelated code paths (export, save, a timer) so a single patched branch does not unlock everything. Vary how you compare (hash, length, flags) rather than calling one \`isLicensed()\` everywhere.
- **Put value behind the server.** Features that need the server anyway (cloud sync, downloads of content or presets, updates, AI features) can require a \`VALID\` answer server-side. That is the only check a patched client cannot skip.
- **Obfuscate modestly.** Strip symbols, inline the license logic, avoid strings like "license invalid" next to the branch that decides; for .NET and Electron, use an obfuscator or compile hot paths natively. It raises the effort; it does not stop anyone.
- **Protect the cache, not only the check.** The generated integrations bind the cached validation to the key and machine fingerprint, refuse the offline grace when the clock was set back, and cap it at ${OFFLINE_GRACE_DAYS} days.
- **Watch the server side.** \`TOO_MANY_MACHINES\` answers, many activations from one key, and revocation (\`REVOKED\`) are your real levers against leaked keys.

## Not worth doing

- Anti-debugging tricks and checksums of your own code: they break on legitimate machines (VMs, accessibility tools, antivirus) more often than they stop crackers.
- Punishing suspected crackers (deleting data, phoning home with personal details): it hurts false positives and can be illegal.
- Hiding an API key or signing secret in the app: it will be extracted.
`,

  server_setup: () => `# Server setup

This service is one Node.js 20 process (Next.js plus a lean HTTP path for \`/activate\`, \`/validate\` and \`/deactivate\`). It is free to self-host.

\`\`\`sh
npm install && npm run build && npm start   # listens on $PORT (3000)
curl -fsS http://localhost:3000/health      # {"status":"ok","version":...}
\`\`\`

\`npm start\` also builds on first start if you skip \`npm run build\`; build at image build time instead so restarts are fast. Migrations run automatically at start (safe with several instances: PostgreSQL advisory lock).

## Configuration

${table(
  ["Variable", "What to set"],
  [
    ["`BASE_URL`", "`https://licenses.example.com`: every absolute URL, the did:web identity and receipt `verify_url` derive from it"],
    ["`DATABASE_URL`", "`postgresql://user:pass@host:5432/db` in production; `file:./data/marketplace.db` (SQLite) for a single instance on a persistent volume"],
    ["`DATABASE_POOL_SIZE`", "connections per instance (10); keep instances × pool below PostgreSQL's `max_connections`"],
    ["`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`", "real payments; unset = built-in test-mode checkout"],
    ["`RESEND_API_KEY`, `MAIL_FROM`", "e-mail delivery of keys; unset = dev mailbox"],
    ["`RECEIPT_SECRET`", "at least 32 random characters (`openssl rand -hex 32`); set it explicitly so every instance signs alike"],
    ["`SIGNING_KEY`", "Ed25519 key (PKCS#8 PEM or base64url 32-byte seed) behind `/.well-known/did.json`"],
    ["`TRUST_PROXY`", "`1` behind one reverse proxy, so rate limits see the real client address"],
    ["`PORT`", "listening port (3000)"],
  ],
)}

## Checklist

- Health check: \`GET /health\`.
- TLS in front (Caddy, nginx, or the platform's). Point apps at \`https://<domain>\`.
- Back up the database; it holds licenses, activations and the generated keys if you did not set them.
- Rate limits are per instance (\`/validate\` 600/min, \`/activate\` + \`/deactivate\` 60/min per address, 120/min per key).
- \`generate_server_config\` writes deployable files for \`docker\`, \`fly\`, \`railway\`, \`render\` and \`vps\`.
`,

  pricing: () => {
    const feeCents = platformFeeCents(example);
    return `# Pricing

${table(
  ["What", "Cost"],
  [
    ["Platform fee", `**${fee} % per sale**`],
    ["Monthly fee", "none"],
    ["Setup fee", "none"],
    ["Fixed per-transaction fee", "none"],
    ["SDK and generated integration code", "free, MIT license"],
    ["Self-hosting", "free"],
  ],
)}

Example: a ${formatPrice(example)} plugin pays ${formatPrice(feeCents)} to the platform and the seller keeps ${formatPrice(example - feeCents)}, before the payment processor's own fee (Stripe charges its fee on every platform). There is no charge for licenses that are not sold: trials, activations, validations and receipts are free.

- The machine-readable terms, with a worked fee example and a comparison, are at \`GET /api/terms\`.
- Self-hosted deployments pay nothing to anyone but their own hosting and payment processor.
- Checkout: \`POST /api/checkout/create\` starts a hosted checkout; the key is e-mailed on payment and \`GET /api/checkout/{session_id}\` reports the status.
`;
  },

  comparison: () => `# Comparison: Keygen, Lemon Squeezy, Gumroad

Vendor facts are from their public pricing and documentation at the time of writing; fees change, so check each vendor's pricing page before deciding. This service publishes its own side at \`GET /api/terms\`.

${table(
  ["", "This service", "Keygen", "Lemon Squeezy", "Gumroad"],
  [
    ["What it is", "marketplace + licensing API, self-hostable", "licensing API (no storefront or payments)", "merchant of record with license keys", "creator storefront with license keys"],
    ["Fees", `${fee} % per sale, no monthly fee, free to self-host`, "monthly subscription tiers (Keygen Cloud); a self-hosted Community Edition", "5 % + 50¢ per transaction, extra for some methods and international sales", "10 % + 50¢ per direct sale, more through Discover"],
    ["Machine binding", "SHA-256 fingerprints, `max_machines`, idempotent re-activation", "yes: machines, fingerprints, per-policy limits", "activation limit per key (instances by name)", "no: a use counter per key"],
    ["Buyer releases a machine", "yes; apps call `POST /deactivate`", "through the API", "seller or app deactivates an instance", "no"],
    ["Offline", `${OFFLINE_GRACE_DAYS}-day grace + HMAC-signed receipts (\`/api/receipt\`); Ed25519 offline files next`, "Ed25519-signed license files", "no signed offline artefact", "no"],
    ["Agents / MCP", "REST, MCP (`/api/mcp`), tool manifest", "REST", "REST", "REST"],
    ["Marketplace", "yes (`/api/catalog`)", "no", "per-seller storefronts", "yes (Discover)"],
  ],
)}

## When to pick which

- **Keygen** is the most complete licensing engine (policies, entitlements, signed offline files today). Choose it if you already have payments and want every licensing knob, and can pay a monthly tier or run its self-hosted edition.
- **Lemon Squeezy** handles sales tax and VAT as merchant of record; license keys are simpler (activation limits by instance name, no hardware fingerprint).
- **Gumroad** is the quickest way to sell to an existing audience; its keys are a counter, not machine binding.
- **This service** is for indie developers who want machine-bound keys, a storefront and an agent interface for ${fee} % with no monthly fee, or for free on their own server. It is not a merchant of record: sales tax is the seller's (or Stripe Tax's) job.
`,
};

/** Markdown explaining a licensing topic, with this service's endpoints and codes. Throws on an unknown topic. */
export function explainLicensing(topic: LicensingTopic): string {
  if (!isLicensingTopic(topic)) throw new Error(`topic must be one of ${LICENSING_TOPICS.join(", ")}`);
  return TOPICS[topic]();
}
