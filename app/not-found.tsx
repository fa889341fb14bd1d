import type { Metadata } from "next";
import { headers } from "next/headers";
import { missingKind } from "@/lib/http/request-path";
import { NotFoundPanel, notFoundCopy } from "@/components/store/not-found-panel";

// Unknown addresses and, on a first load, missing products and checkouts render this page (server.ts hands those to
// Next under a path naming the kind, lib/http/request-path.ts), so it says what was not found.
export async function generateMetadata(): Promise<Metadata> {
  return { title: notFoundCopy(missingKind(await headers())).title, robots: { index: false } };
}

export default async function NotFound() {
  return <NotFoundPanel copy={notFoundCopy(missingKind(await headers()))} />;
}
