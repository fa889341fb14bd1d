import type { Metadata } from "next";
import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { cache } from "react";
import { adminFromCookies, type Admin } from "./access.ts";

/** The operator signed in to this page request, or null; read once per request. */
const currentAdmin = cache(async (): Promise<Admin | null> => {
  const jar = await cookies();
  return adminFromCookies((name) => jar.get(name)?.value);
});

/**
 * For /admin pages and their actions: the operator, or the site's ordinary 404 page, so nobody else can tell that
 * the console exists. The layout and every page check (a page can render without its layout).
 */
export async function requireAdmin(): Promise<Admin> {
  const admin = await currentAdmin();
  if (!admin) notFound();
  return admin;
}

/** A console page's title for the operator; for anyone else the 404 page's own, so not even the title tells. */
export async function adminMetadata(title: string): Promise<Metadata> {
  const admin = await currentAdmin();
  return { title: admin ? `${title} · Operator console` : "Page not found", robots: { index: false } };
}
