import { formValues, type FormState } from "./form-state";

/**
 * The developer profile form (welcome and profile pages) as the profile operations' input: form text into the body's
 * types, nothing judged here (createSellerProfile and updateSellerProfile check it with profileInputSchema).
 */

const FIELDS = ["name", "website", "bio", "refund_policy", "support_email", "support_url"] as const;

/** "example.com" is taken to mean https://example.com; anything else is left for the schema to judge. */
function withScheme(text: string): string {
  const t = text.trim();
  return t && !/^[a-z][a-z0-9+.-]*:/i.test(t) && /^[^\s/]+\.[^\s/]+/.test(t) ? `https://${t}` : t;
}

/** What the seller typed (to put back into the form after a refusal), and the operation's body: an empty optional field is stored as empty. */
export function profileForm(fd: FormData): { values: FormState["values"]; body: Record<string, unknown> } {
  const values = formValues(fd, FIELDS);
  const text = (name: (typeof FIELDS)[number]) => String(values[name]);
  return {
    values,
    body: {
      name: text("name"),
      website: withScheme(text("website")) || null,
      bio: text("bio"),
      refund_policy: text("refund_policy"),
      support_email: text("support_email").trim() || null,
      support_url: withScheme(text("support_url")) || null,
    },
  };
}
