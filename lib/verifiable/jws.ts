import { sign, verify } from "node:crypto";
import { serviceDid } from "../identity/did.ts";
import { signingKey, signingKeys } from "../identity/service-keys.ts";
import { decodeBase64urlStrict } from "./base64url.ts";

const b64u = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v), "utf8").toString("base64url");

/** A compact JWS (EdDSA) signed with the current service key; `kid` names its DID verification method. */
export async function signJws(payload: object, typ: string): Promise<string> {
  const key = await signingKey();
  const header = { alg: "EdDSA", typ, kid: `${serviceDid()}#${key.id}` };
  const input = `${b64u(header)}.${b64u(payload)}`;
  return `${input}.${sign(null, Buffer.from(input, "ascii"), key.privateKey).toString("base64url")}`;
}

/**
 * Verifies a compact JWS against our own published keys; returns the payload, or null for anything else. Each of the
 * three parts must be strict base64url (no padding, whitespace or `+`/`/`), so a signed token has exactly one spelling.
 */
export async function verifyOwnJws(jws: string): Promise<Record<string, unknown> | null> {
  if (jws.length > 64 * 1024) return null;
  const parts = jws.split(".");
  if (parts.length !== 3) return null;
  const [head, body, sig] = parts.map((p) => ({ text: p, bytes: decodeBase64urlStrict(p) }));
  if (!head?.bytes || !body?.bytes || !sig?.bytes) return null;
  try {
    const header = JSON.parse(head.bytes.toString("utf8")) as { alg?: string; kid?: string };
    if (header.alg !== "EdDSA" || typeof header.kid !== "string") return null;
    const [did, fragment] = header.kid.split("#");
    if (did !== serviceDid()) return null;
    const key = (await signingKeys()).all.find((k) => k.id === fragment);
    if (!key) return null;
    const ok = verify(null, Buffer.from(`${head.text}.${body.text}`, "ascii"), key.publicKey, sig.bytes);
    if (!ok) return null;
    const payload: unknown = JSON.parse(body.bytes.toString("utf8"));
    return payload && typeof payload === "object" && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
