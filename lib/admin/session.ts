import { cookies } from "next/headers";
import { notFound } from "next/navigation";
import { cache } from "react";
import { adminFromCookies, type Admin } from "./access.ts";

/** The operator signed in to this page request, or null. */
export async function currentAdmin(): Promise<Admin | null> {
  const jar = await cookies();
  return adminFromCookies((name) => jar.get(name)?.value);
}

/**
 * For /admin pages and their actions: the operator, or the site's ordinary 404 page, so nobody else can tell that
 * the console exists. Read once per request, shared by the layout and the page (both must check).
 */
export const requireAdmin = cache(async (): Promise<Admin> => {
  const admin = await currentAdmin();
  if (!admin) notFound();
  return admin;
});
