import { FEE_TERMS, PRICING, platformFeeCents, formatPrice } from "../../pricing.ts";
import { table } from "./markdown.ts";
import { publicKeyCommand } from "./integration/common.ts";
import {
  isLicensingTopic,
  LICENSE_FILE_CLOCK_SKEW_SECONDS,
  LICENSE_FILE_DEFAULT_DAYS,
  LICENSE_FILE_ENDPOINT,
  LICENSE_FILE_FORMAT,
  LICENSING_TOPICS,
  OFFLINE_GRACE_DAYS,
  type LicensingTopic,
} from "./options.ts";

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
    [
      "Windows",
      "`ProcessorNameString` under `HKLM\\HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0`",
      "`MachineGuid` under `HKLM\\SOFTWARE\\Microsoft\\Cryptography` (64-bit view)",
    ],
  ],
)}

Hashing keeps the raw identifiers off the server; only the digest is sent and stored.

## The calls

- \`POST /activate\` \`{license_key, machine_fingerprint, plugin_id}\` takes a seat: \`ACTIVATED\`, or \`ALREADY_ACTIVATED\` when this machine already has one (idempotent: re-activating never takes a second seat). When every seat is taken the answer is \`TOO_MANY_MACHINES\` with \`active_machines\` and \`max_machines\`, so the app can say "active on 3 of 3 machines".
- \`POST /validate\` at every launch answers \`VALID\` only for an activated machine; \`NO_MACHINE\` (no machine at all yet) or \`FINGERPRINT_SCOPE_MISMATCH\` (other machines, not this one) mean "call /activate", which the generated integrations do automatically.
- \`POST /deactivate\` \`{license_key, machine_fingerprint}\` frees the seat at once (\`DEACTIVATED\`, or \`NOT_ACTIVATED\` when there was nothing to free). Buyers can also release machines themselves, so a dead laptop never needs a support ticket.

Seats are taken by one conditional update inside the activation's transaction, so concurrent activations can never exceed \`max_machines\`.

## Offline, the binding travels with the license file

An activated machine can fetch a **signed offline license file** (\`GET ${LICENSE_FILE_ENDPOINT}?key=…&fingerprint=…\`; \`409 machine_not_activated\` for a machine without a seat). Its Ed25519-signed payload names the machine (\`machine.fingerprint\`, \`machine.activated_at\`) as well as the license (\`key\`, \`plugin_id\`, \`max_machines\`), so a file copied to another computer is refused there: the app recomputes its own fingerprint and refuses a file issued for another one (see \`offline_validation\`). Releasing the machine with \`/deactivate\` deletes the file in the generated integrations; a copy kept elsewhere still runs out at its \`expires_at\`.

## Practical advice

- Keep the fingerprint recipe stable across versions of your app: a different digest is a different machine and takes another seat.
- Cloned VM images and some containers share \`/etc/machine-id\`; they will count as one machine. That is usually what you want for a reinstall, and a reason to keep \`max_machines\` generous (2–3) for desktop software.
- Replacing the CPU or reinstalling Windows changes the fingerprint: offer a "Release this machine" action in your settings or uninstaller that calls \`/deactivate\`.
- Rate limits: \`/activate\` + \`/deactivate\` 60 per minute per client address, \`/validate\` 600, and 120 per key; errors are 429 with \`Retry-After\`.
`,

  offline_validation: () => `# Offline validation

Licensed apps should keep working on a plane. This service does it with **signed offline license files**: after each good online check the app fetches a file, signed with the service's Ed25519 key, that says "this license, on this machine, until this date". Offline, the app verifies it with the service's public key, which it carries in its own code, and needs no server at all.

## Fetching the file

\`GET ${LICENSE_FILE_ENDPOINT}?key=XXXX-XXXX-XXXX-XXXX&fingerprint=<machine fingerprint>\` (optionally \`&plugin_id=<your plugin_id>\`, which makes a key for another product answer 404) returns \`text/plain\`. It works only for a license that stands, on a machine activated with \`POST /activate\`; otherwise it answers an RFC 9457 problem: \`409 machine_not_activated\`, \`409 license_revoked\`, \`409 license_expired\` or \`license_trial_expired\`, \`404 license_not_found\`. Rate limit: 120 per minute per client address and per key, so fetch it once per launch, after \`POST /validate\` answers \`VALID\`.

\`\`\`text
-----BEGIN LICENSE FILE-----
format: ${LICENSE_FILE_FORMAT}
key-id: did:web:licenses.example.com#ed25519-1
payload: <base64url, no padding, of the RFC 8785 canonical JSON payload>
signature: <base64url, no padding, of the 64-byte Ed25519 signature>
-----END LICENSE FILE-----
\`\`\`

The signature covers the ASCII bytes \`${LICENSE_FILE_FORMAT}.\` followed by the payload line's value exactly as it stands in the file (verify those bytes; never re-encode the JSON). The payload:

\`\`\`json
{"expires_at":"2026-03-02T10:00:00.000Z","format":"${LICENSE_FILE_FORMAT}","issued_at":"2026-01-31T10:00:00.000Z","issuer":"did:web:licenses.example.com","key_id":"did:web:licenses.example.com#ed25519-1","license":{"expires_at":null,"key":"XXXX-XXXX-XXXX-XXXX","max_machines":2,"plugin_id":"com.example.app","product_id":"…","product_name":"…","trial":false},"machine":{"activated_at":"2026-01-02T09:00:00.000Z","fingerprint":"<64 hex>"}}
\`\`\`

A file is valid for the product's license-file lifetime, **${LICENSE_FILE_DEFAULT_DAYS} days** by default, and never past the license's own end (\`license.expires_at\`, null for a perpetual license), so a trial's file ends with the trial.

## Verifying it offline

The app may run while the server cannot be reached only when all of these hold:

1. The armour lines are there and the \`format\` line is \`${LICENSE_FILE_FORMAT}\`.
2. The \`key-id\` is one the app embeds, and the Ed25519 signature over the exact bytes above verifies with that key; the payload's \`format\` and \`key_id\` repeat the header's.
3. \`payload.machine.fingerprint\` is this machine's fingerprint (and \`license.key\` is the stored key).
4. \`payload.license.plugin_id\` is the app's own \`plugin_id\`.
5. Now is before \`payload.expires_at\` (and before \`license.expires_at\` when set), and the clock has not gone back before \`issued_at\` (${LICENSE_FILE_CLOCK_SKEW_SECONDS / 60} minutes of skew allowed).

The generated integrations (\`generate_license_integration\`) implement exactly this in every language (OpenSSL's \`EVP_DigestVerify\` in C, C++ and JUCE, \`ring\` in Rust and Tauri, \`cryptography\` or a built-in RFC 8032 verifier in Python, \`crypto.verify\` in Electron, BouncyCastle in C#), store the file as \`license.lic\` next to their cached state only after it verifies, and say why a file was refused ("issued for another machine", "the license file has expired", "signature does not verify", …).

## The public key: embedded, never fetched

The key is in the service's DID document, \`GET /.well-known/did.json\`: each \`verificationMethod\` has an \`id\` (the file's \`key-id\`) and a \`publicKeyMultibase\`, which is \`z\` + base58btc(\`0xed 0x01\` ‖ the 32-byte raw key). Embed the raw key in the app at build time, in the constant \`LICENSE_PUBLIC_KEYS\` (key-id → base64url raw key); this prints it:

\`\`\`sh
${publicKeyCommand("https://licenses.example.com")}
\`\`\`

Never fetch the key at run time in the verifying path: whoever can answer that request (a hosts-file entry, a proxy) could hand the app their own key and sign their own files. The public key is safe to ship: it can verify, not sign.

**Rotation**: the service can add a key (the old one stays in the DID document, so files it signed keep verifying). New files carry the new \`key-id\`; add it to \`LICENSE_PUBLIC_KEYS\` next to the old one and ship the update before old files run out. An app that does not know a file's \`key-id\` refuses the file and falls back to asking the server.

**Revocation** reaches an offline app when its file expires (at most ${LICENSE_FILE_DEFAULT_DAYS} days by default), or at its next online check: \`POST /validate\` then answers \`REVOKED\` and the generated code deletes the file at once. Shorten the product's file lifetime if that matters more to you than long trips offline.

## Without an embedded key: the ${OFFLINE_GRACE_DAYS}-day grace

An app whose \`LICENSE_PUBLIC_KEYS\` holds no key yet (the placeholder) fetches no files and keeps the older **cache and grace** scheme: it stores the last \`VALID\` answer with a timestamp, key and fingerprint, and runs on it for up to **${OFFLINE_GRACE_DAYS} days** while the server cannot be reached (never when the clock was set back, never past the license's own \`expires_at\`). That cache is unsigned, so anyone can edit it; once a key is embedded the generated code ignores it offline and trusts only a verified file.

## Receipts and credentials, for everything that is not the app

- **Receipts**: \`GET /api/receipt?key=…\` returns \`{receipt, signature, verify_url, verify_method}\`, HMAC-SHA256 over the RFC 8785 canonical JSON of the receipt; anyone checks it with \`POST /api/receipt\` \`{receipt, signature}\` → \`{valid, still_active, receipt_age_seconds}\`. The HMAC secret stays on the server, so only the service can verify one: useful for support tools and resellers, not for an offline app.
- **Verifiable credentials**: \`GET /api/receipt/credential?key=…\` returns the license's facts as a W3C Verifiable Credential (the license named by id; the key and the holder's address only as salted digests, so it can be shared) secured as a JWT (\`application/vc+jwt\`, \`alg: EdDSA\`, \`kid\` naming the DID verification method), verifiable by anyone with the public key from \`/.well-known/did.json\`. Its \`credentialStatus\` points into a **W3C Bitstring Status List** at \`/api/status/revocation\` (itself a signed \`vc+jwt\`, cached for at most a minute), where a set bit means revoked: what a marketplace, a reseller or an AI agent checks to learn that a license was revoked.

- License file: \`GET ${LICENSE_FILE_ENDPOINT}\`, Ed25519, ${LICENSE_FILE_DEFAULT_DAYS} days, bound to machine and product.
- Public key: \`/.well-known/did.json\`, embedded at build time as \`LICENSE_PUBLIC_KEYS\`.
- No key embedded: ${OFFLINE_GRACE_DAYS}-day unsigned grace.
- Receipts: \`GET /api/receipt\`, verified by \`POST /api/receipt\`; credentials: \`/api/receipt/credential\`, status at \`/api/status/revocation\`.
`,

  trial_keys: () => `# Trial keys

A trial is an ordinary license with an end date. Products that offer trials hand one out per e-mail address and product:

- \`POST /api/trials\` \`{product_id, buyer_email}\` → \`202 {accepted: true, product_id, plugin_id, trial: true, trial_days, message}\`. The key is never in the answer: it is e-mailed to \`buyer_email\`, so only the owner of the address gets it. The answer is the same whether the address is new, already has a trial or already bought the product. Asking again re-sends the same key (at most once per 10 minutes), so a user cannot restart the clock by asking twice.
- One trial per mailbox and product: addresses are compared lower-cased, with Gmail's dots and the \`+tag\` of Gmail, Outlook/Hotmail/Live, iCloud, Fastmail and Proton (Yahoo's \`-tag\`) removed. Addresses under reserved domains (\`.test\`, \`.example\`, \`.invalid\`, \`.localhost\`, \`.local\`) are refused with 400.
- In the app: ask for the e-mail address, call \`POST /api/trials\`, then tell the user to check their inbox and paste the key from the e-mail.
- The app activates and validates a trial key exactly like a paid one. \`POST /validate\` answers \`VALID\` with \`trial: true\` and \`trial_days_remaining\` (whole days, rounded up): show "12 days left" in the title bar or about box.
- When the end date passes, validation answers \`TRIAL_EXPIRED\` (a paid license that ends answers \`EXPIRED\`). The app should offer to buy: link to the product page or \`POST /api/checkout/create\`, and the paid key arrives by e-mail.
- The paid key is a different key. The generated integrations forget the trial key on \`TRIAL_EXPIRED\` and ask for a key at the next start.

## Tips

- Rate limits on trials: by default 10 trials per hour per client address (\`RATE_LIMIT_TRIAL_PER_HOUR\`), and 30 trial and checkout starts per minute.
- Don't give trials more seats than the paid license; a trial activated on one machine takes a seat of the trial, not of a later purchase.
- Offline running applies to trials too, but never past the trial's own \`expires_at\`: a trial's signed license file ends with the trial.

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
    [`\`GET ${LICENSE_FILE_ENDPOINT}\``, "`409 license_revoked`: no new license file"],
    ["`/api/status/revocation`", "the license's bit in the Bitstring Status List is set, for anyone holding its credential"],
  ],
)}

The revoked license keeps its list of machines, so the seller can see where it was used. With several instances behind a load balancer, an instance may serve its cached answer for up to \`LICENSE_CACHE_TTL_MS\` (10 s by default) after the change.

## What the app should do

- On \`REVOKED\`: stop, show "This license has been revoked by the seller", and delete the cached validation and the license file so nothing keeps it alive offline. The generated integrations do this.
- A leaked key shows up as \`TOO_MANY_MACHINES\` before anything else; revoking it and issuing a new key to the real buyer is the fix.

## Limits to be honest about

- An app that never goes online keeps running until its signed license file expires (${LICENSE_FILE_DEFAULT_DAYS} days after it was issued by default; the ${OFFLINE_GRACE_DAYS}-day grace for apps without an embedded key); revocation cannot reach it sooner. Shorten the product's license-file lifetime if that matters more to you than offline users.
- Client-side checks can be patched out of a binary (see \`anti_tamper\`); revocation is strongest for features that need the server anyway.
`,

  anti_tamper: () => `# Anti-tamper: what client-side checks can and cannot do

Any check that runs on the user's machine can be found and patched by a determined cracker; no obfuscator changes that. The goal is to make casual sharing inconvenient and keep honest users happy, not to be uncrackable.

## Worth doing

- **Never ship secrets in the binary.** Receipts are signed with HMAC-SHA256 using \`RECEIPT_SECRET\`, which stays on the server; that is why they are verified through \`POST /api/receipt\` rather than in the app. The Ed25519 **public** key in \`GET /.well-known/did.json\` is safe to embed: it can verify, not sign.
- **Trust offline only what the service signed.** The signed license file (\`GET ${LICENSE_FILE_ENDPOINT}\`, format \`${LICENSE_FILE_FORMAT}\`) is Ed25519-signed over \`${LICENSE_FILE_FORMAT}.\` + its payload, and binds the license key, the product's \`plugin_id\` and the machine fingerprint to an \`expires_at\` (${LICENSE_FILE_DEFAULT_DAYS} days by default). Editing a byte, copying it to another machine, reusing it for another product or keeping it past its date all make it fail, and with a key embedded the generated code ignores the editable unsigned cache offline.
- **Embed the key; never fetch it at run time.** The constant \`LICENSE_PUBLIC_KEYS\` (key-id → base64url raw key, printed from \`/.well-known/did.json\`) is compiled into the app. A key fetched at run time can be swapped by whoever controls the network or the hosts file, together with a file they signed themselves. Rotation adds a key-id next to the old one.
- **Expect the clock to be moved.** The generated code refuses a file whose \`issued_at\` is in the future (the clock was set back, ${LICENSE_FILE_CLOCK_SKEW_SECONDS / 60} minutes of skew allowed) or whose \`expires_at\` has passed; a clock moved back within that window buys at most the file's own lifetime.
- **Revocation is eventual offline.** It takes effect at the file's expiry or the next online check (\`REVOKED\` deletes the file). Other parties can check a license without your app: the EdDSA \`vc+jwt\` credential from \`/api/receipt/credential\` points into the W3C Bitstring Status List at \`/api/status/revocation\`.
- **Check in more than one place.** Besides the startup check, re-read the cached outcome from a few unrelated code paths (export, save, a timer) so a single patched branch does not unlock everything. Vary how you compare (hash, length, flags) rather than calling one \`isLicensed()\` everywhere.
- **Put value behind the server.** Features that need the server anyway (cloud sync, downloads of content or presets, updates, AI features) can require a \`VALID\` answer server-side. That is the only check a patched client cannot skip.
- **Obfuscate modestly.** Strip symbols, inline the license logic, avoid strings like "license invalid" next to the branch that decides; for .NET and Electron, use an obfuscator or compile hot paths natively. It raises the effort; it does not stop anyone.
- **Protect the cache, not only the check.** Without an embedded key, the generated integrations bind the unsigned cached validation to the key and machine fingerprint, refuse the offline grace when the clock was set back, and cap it at ${OFFLINE_GRACE_DAYS} days; embed the key so the signed file replaces it.
- **The signature check is still code in the app.** A cracker can patch the branch that calls it, or replace the embedded key with their own; signing stops forged and shared files, not a patched binary. Combine it with the points below.
- **Watch the server side.** \`TOO_MANY_MACHINES\` answers, many activations from one key, and revocation (\`REVOKED\`) are your real levers against leaked keys.

## Not worth doing

- Anti-debugging tricks and checksums of your own code: they break on legitimate machines (VMs, accessibility tools, antivirus) more often than they stop crackers.
- Punishing suspected crackers (deleting data, phoning home with personal details): it hurts false positives and can be illegal.
- Hiding an API key or signing secret in the app: it will be extracted. (The embedded Ed25519 public key is not a secret; extracting it gains nothing.)
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
    [
      "`DATABASE_URL`",
      "`postgresql://user:pass@host:5432/db` in production; `file:./data/marketplace.db` (SQLite) for a single instance on a persistent volume",
    ],
    ["`DATABASE_POOL_SIZE`", "connections per instance (10); keep instances × pool below PostgreSQL's `max_connections`"],
    [
      "`STRIPE_SECRET_KEY`, `STRIPE_WEBHOOK_SECRET`",
      "real payments; unset = checkout refused in production (`PAYMENTS=test` opts into the built-in test mode)",
    ],
    ["`RESEND_API_KEY`, `MAIL_FROM`", "e-mail delivery of keys; unset = dev mailbox"],
    ["`RECEIPT_SECRET`", "at least 32 random characters (`openssl rand -hex 32`); set it explicitly so every instance signs alike"],
    ["`SIGNING_KEY`", "Ed25519 key (PKCS#8 PEM or base64url 32-byte seed) behind `/.well-known/did.json`"],
    [
      "`TRUST_PROXY`, `TRUST_PROXY_FROM`",
      "`1` behind one reverse proxy, and the proxy's addresses (default loopback), so rate limits see the real client address",
    ],
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

${FEE_TERMS.platform} Example: a ${formatPrice(example)} plugin pays ${formatPrice(feeCents)} to the platform and the seller receives ${formatPrice(example - feeCents)}. ${FEE_TERMS.processor} ${FEE_TERMS.testMode} Tax, when the operator turns Stripe Tax on, is added on top of the price and is not part of either share. There is no charge for licenses that are not sold: trials, activations, validations and receipts are free.

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
    [
      "What it is",
      "marketplace + licensing API, self-hostable",
      "licensing API (no storefront or payments)",
      "merchant of record with license keys",
      "creator storefront with license keys",
    ],
    [
      "Fees",
      `${fee} % per sale, no monthly fee, free to self-host`,
      "monthly subscription tiers (Keygen Cloud); a self-hosted Community Edition",
      "5 % + 50¢ per transaction, extra for some methods and international sales",
      "10 % + 50¢ per direct sale, more through Discover",
    ],
    [
      "Machine binding",
      "SHA-256 fingerprints, `max_machines`, idempotent re-activation",
      "yes: machines, fingerprints, per-policy limits",
      "activation limit per key (instances by name)",
      "no: a use counter per key",
    ],
    ["Buyer releases a machine", "yes; apps call `POST /deactivate`", "through the API", "seller or app deactivates an instance", "no"],
    [
      "Offline",
      `Ed25519-signed machine license files (\`${LICENSE_FILE_ENDPOINT}\`, ${LICENSE_FILE_DEFAULT_DAYS} days by default) verified in the app; EdDSA verifiable credentials with a status list`,
      "Ed25519-signed license files",
      "no signed offline artefact",
      "no",
    ],
    ["Agents / MCP", "REST, MCP (`/api/mcp`), tool manifest", "REST", "REST", "REST"],
    ["Marketplace", "yes (`/api/catalog`)", "no", "per-seller storefronts", "yes (Discover)"],
  ],
)}

## When to pick which

- **Keygen** is the most complete licensing engine (policies, entitlements, signed offline files). Choose it if you already have payments and want every licensing knob, and can pay a monthly tier or run its self-hosted edition.
- **Lemon Squeezy** handles sales tax and VAT as merchant of record; license keys are simpler (activation limits by instance name, no hardware fingerprint).
- **Gumroad** is the quickest way to sell to an existing audience; its keys are a counter, not machine binding.
- **This service** is for indie developers who want machine-bound keys, a storefront and an agent interface for ${fee} % with no monthly fee, or for free on their own server. It is not the merchant of record: with Stripe Connect each sale is made on behalf of the seller's own Stripe account, so the seller is the merchant of record and sales tax is theirs (Stripe Tax can calculate and collect it at checkout).
`,
};

/** Markdown explaining a licensing topic, with this service's endpoints and codes. Throws on an unknown topic. */
export function explainLicensing(topic: LicensingTopic): string {
  if (!isLicensingTopic(topic)) throw new Error(`topic must be one of ${LICENSING_TOPICS.join(", ")}`);
  return TOPICS[topic]();
}
