import { env } from "../env.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { ed25519Multibase } from "./multibase.ts";
import { signingKey } from "./service-keys.ts";

/** did:web of BASE_URL's host; a port is percent-encoded as the did:web method requires (`localhost%3A3000`). */
export function serviceDid(baseUrl = env().BASE_URL): string {
  const u = new URL(baseUrl);
  return `did:web:${u.port ? `${u.hostname}%3A${u.port}` : u.hostname}`;
}

/** The W3C DID document served at /.well-known/did.json. */
export async function didDocument() {
  const did = serviceDid();
  const key = await signingKey();
  const vm = `${did}#${key.id}`;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
    id: did,
    verificationMethod: [{ id: vm, type: "Multikey", controller: did, publicKeyMultibase: ed25519Multibase(key.raw) }],
    authentication: [vm],
    assertionMethod: [vm],
    service: [
      { id: `${did}#marketplace`, type: "LinkedDomains", serviceEndpoint: absoluteUrl("/") },
      { id: `${did}#mcp`, type: "MCPServer", serviceEndpoint: absoluteUrl(paths.mcp) },
      { id: `${did}#receipts`, type: "LicenseReceiptVerification", serviceEndpoint: absoluteUrl("/api/receipt") },
    ],
  };
}
