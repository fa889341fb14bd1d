import { sign, verify } from "node:crypto";
import { serviceDid } from "../identity/did.ts";
import { signingKey, signingKeys } from "../identity/service-keys.ts";

const b64u = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v), "utf8").toString("base64url");

/** A compact JWS (EdDSA) signed with the current service key; `kid` names its DID verification method. */
export async function signJws(payload: object, typ: string): Promise<string> {
  const key = await signingKey();
  const header = { alg: "EdDSA", typ, kid: `${serviceDid()}#${key.id}` };
  const input = `${b64u(header)}.${b64u(payload)}`;
  return `${input}.${sign(null, Buffer.from(input, "ascii"), key.privateKey).toString("base64url")}`;
}

/** Verifies a compact JWS against our own published keys; returns the payload, or null for anything else. */
export async function verifyOwnJws(jws: string): Promise<Record<string, unknown> | null> {
  const parts = jws.split(".");
  const [head, body, sig] = parts;
  if (parts.length !== 3 || head === undefined || body === undefined || sig === undefined || jws.length > 64 * 1024) return null;
  try {
    const header = JSON.parse(Buffer.from(head, "base64url").toString("utf8")) as { alg?: string; kid?: string };
    if (header.alg !== "EdDSA" || typeof header.kid !== "string") return null;
    const [did, fragment] = header.kid.split("#");
    if (did !== serviceDid()) return null;
    const key = (await signingKeys()).all.find((k) => k.id === fragment);
    if (!key) return null;
    const ok = verify(null, Buffer.from(`${head}.${body}`, "ascii"), key.publicKey, Buffer.from(sig, "base64url"));
    if (!ok) return null;
    const payload: unknown = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    return payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
