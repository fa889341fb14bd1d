import { profileInputSchema, type ProfileInput } from "@/lib/dashboard/developer-profile";
import { formValues, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

/** The profile form in profileInputSchema's shape; "example.com" is taken to mean https://example.com. */
export function readProfileForm(fd: FormData): { ok: true; input: ProfileInput } | { ok: false; state: FormState } {
  const values = formValues(fd, ["name", "website", "bio"]);
  let website = String(values.website).trim();
  if (website && !/^[a-z][a-z0-9+.-]*:/i.test(website) && /^[^\s/]+\.[^\s/]+/.test(website)) website = `https://${website}`;
  const parsed = profileInputSchema.safeParse({ name: values.name, website: website || null, bio: values.bio }, { reportInput: true });
  if (!parsed.success) return { ok: false, state: refused(values, zodFieldErrors(parsed.error)) };
  return { ok: true, input: parsed.data };
}
