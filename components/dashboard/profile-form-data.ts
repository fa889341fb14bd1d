import { profileInputSchema, type ProfileInput } from "@/lib/dashboard/developer-profile";
import { formValues, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

/** "example.com" is taken to mean https://example.com; anything else is left for the schema to judge. */
function withScheme(text: string): string {
  const t = text.trim();
  return t && !/^[a-z][a-z0-9+.-]*:/i.test(t) && /^[^\s/]+\.[^\s/]+/.test(t) ? `https://${t}` : t;
}

/** What the seller typed, to put back into the form after a refusal. */
export const profileFormValues = (fd: FormData) => formValues(fd, ["name", "website", "bio", "refund_policy", "support_email", "support_url"]);

/** The profile form in profileInputSchema's shape; an empty optional field is stored as empty. */
export function readProfileForm(fd: FormData): { ok: true; input: ProfileInput } | { ok: false; state: FormState } {
  const values = profileFormValues(fd);
  const website = withScheme(String(values.website));
  const supportUrl = withScheme(String(values.support_url));
  const supportEmail = String(values.support_email).trim();
  const parsed = profileInputSchema.safeParse(
    {
      name: values.name,
      website: website || null,
      bio: values.bio,
      refund_policy: values.refund_policy,
      support_email: supportEmail || null,
      support_url: supportUrl || null,
    },
    { reportInput: true },
  );
  if (!parsed.success) return { ok: false, state: refused(values, zodFieldErrors(parsed.error)) };
  return { ok: true, input: parsed.data };
}
