import { gzipSync } from "node:zlib";
import { getDb } from "../db.ts";
import { serviceDid } from "../identity/did.ts";
import { absoluteUrl } from "../urls.ts";
import { signJws } from "./jws.ts";

/** W3C Bitstring Status List: one revocation list for every license credential this service issues. */
const STATUS_LIST_PATH = "/api/status/revocation";
/** The specification's minimum list length (16 KiB), which also hides how many licenses exist. */
const MIN_STATUS_BITS = 131_072;

export const statusListUrl = () => absoluteUrl(STATUS_LIST_PATH);

/** The license's position in the list, allocated on first use; positions are never reused. */
export async function statusIndexFor(licenseId: string): Promise<number> {
  const db = getDb();
  for (let attempt = 0; attempt < 20; attempt++) {
    const license = await db.license.findUniqueOrThrow({ where: { id: licenseId }, select: { statusIndex: true } });
    if (license.statusIndex !== null) return license.statusIndex;
    const top = await db.license.aggregate({ _max: { statusIndex: true } });
    const next = (top._max.statusIndex ?? -1) + 1;
    try {
      const n = await db.license.updateMany({ where: { id: licenseId, statusIndex: null }, data: { statusIndex: next } });
      if (n.count === 1) return next;
    } catch (error) {
      // Another license took this position at the same moment: take the next one.
      if ((error as { code?: string }).code !== "P2002") throw error;
    }
  }
  throw new Error("could not allocate a status list position");
}

/** The bitstring: bit i (most significant bit first, as the specification orders them) is set when license i is revoked. */
async function revocationBits(): Promise<Buffer> {
  const rows = (await getDb().license.findMany({ where: { statusIndex: { not: null } }, select: { statusIndex: true, isActive: true } })).flatMap(
    (r) => (r.statusIndex === null ? [] : [{ index: r.statusIndex, isActive: r.isActive }]),
  );
  const max = rows.reduce((m, r) => Math.max(m, r.index), 0);
  const bits = Math.max(MIN_STATUS_BITS, Math.ceil((max + 1) / 8) * 8);
  const list = Buffer.alloc(bits / 8);
  for (const r of rows) if (!r.isActive) list.writeUInt8(list.readUInt8(r.index >> 3) | (0x80 >> (r.index & 7)), r.index >> 3);
  return list;
}

/** The status list credential (VC Data Model 2.0, secured as a JWT), regenerated from the licenses on each request. */
export async function statusListCredential(now = new Date()): Promise<string> {
  const url = statusListUrl();
  const encodedList = "u" + gzipSync(await revocationBits()).toString("base64url");
  return signJws(
    {
      "@context": ["https://www.w3.org/ns/credentials/v2"],
      id: url,
      type: ["VerifiableCredential", "BitstringStatusListCredential"],
      issuer: serviceDid(),
      validFrom: now.toISOString(),
      credentialSubject: { id: `${url}#list`, type: "BitstringStatusList", statusPurpose: "revocation", encodedList },
      iss: serviceDid(),
      iat: Math.floor(now.getTime() / 1000),
    },
    "vc+jwt",
  );
}
