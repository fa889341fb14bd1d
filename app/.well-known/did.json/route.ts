import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { didDocument } from "@/lib/identity/did";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({ cache: CACHE.document, contentType: "application/did+json", handler: () => didDocument() }),
});
