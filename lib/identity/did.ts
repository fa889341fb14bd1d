import { env } from "../env.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { ed25519Multibase } from "./multibase.ts";
import { signingKeys } from "./service-keys.ts";

/** did:web of BASE_URL's host; a port is percent-encoded as the did:web method requires (`localhost%3A3000`). */
export function serviceDid(baseUrl = env().BASE_URL): string {
  const u = new URL(baseUrl);
  return `did:web:${u.port ? `${u.hostname}%3A${u.port}` : u.hostname}`;
}

/** The W3C DID document served at /.well-known/did.json. */
export async function didDocument() {
  const did = serviceDid();
  const { current, all } = await signingKeys();
  const vm = (id: string) => `${did}#${id}`;
  return {
    "@context": ["https://www.w3.org/ns/did/v1", "https://w3id.org/security/multikey/v1"],
    id: did,
    // Every key that ever signed stays listed, so license files and credentials it signed keep verifying.
    verificationMethod: all.map((k) => ({ id: vm(k.id), type: "Multikey", controller: did, publicKeyMultibase: ed25519Multibase(k.raw) })),
    authentication: [vm(current.id)],
    assertionMethod: [vm(current.id), ...all.filter((k) => k.id !== current.id).map((k) => vm(k.id))],
    service: [
      { id: `${did}#marketplace`, type: "LinkedDomains", serviceEndpoint: absoluteUrl("/") },
      { id: `${did}#mcp`, type: "MCPServer", serviceEndpoint: absoluteUrl(paths.mcp) },
      { id: `${did}#receipts`, type: "LicenseReceiptVerification", serviceEndpoint: absoluteUrl("/api/receipt") },
    ],
  };
}
