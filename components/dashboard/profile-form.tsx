import { REFUND_POLICY_MAX } from "@/lib/selling/developer-profile";
import { paths } from "@/lib/urls";
import { ActionForm, SubmitButton, TextAreaField, TextField } from "./form-fields";
import type { FormState } from "./form-state";

const LABELS = {
  name: "Developer or studio name",
  website: "Website",
  bio: "About you",
  refund_policy: "Refund policy",
  support_email: "Support e-mail",
  support_url: "Support web page",
};

export function ProfileForm({
  action,
  initial,
  submitLabel,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  initial?: { name: string; website: string | null; bio: string; refundPolicy: string; supportEmail: string | null; supportUrl: string | null };
  submitLabel: string;
}) {
  return (
    <ActionForm action={action} prefix="profile" labels={LABELS} label="Developer profile" className="space-y-5">
      <TextField
        name="name"
        label={LABELS.name}
        defaultValue={initial?.name}
        required
        maxLength={60}
        autoComplete="organization"
        hint="Shown on every product and receipt. 2 to 60 characters."
      />
      <TextField
        name="website"
        label={LABELS.website}
        type="url"
        defaultValue={initial?.website ?? ""}
        optional
        autoComplete="url"
        placeholder="https://example.com"
      />
      <TextAreaField
        name="bio"
        label={LABELS.bio}
        defaultValue={initial?.bio}
        optional
        rows={4}
        maxLength={600}
        hint="A few sentences for your store page, up to 600 characters."
      />
      <fieldset
        id={paths.profileSupport.split("#")[1]}
        tabIndex={-1}
        className="min-w-0 scroll-mt-6 space-y-5 rounded-xl border border-slate-200 p-4"
      >
        <legend className="px-1 text-sm font-semibold text-slate-900">Support and refunds</legend>
        <p className="text-sm text-slate-600">
          Shown on each of your product pages. Needed before you list a paid product: a refund policy and at least one way to reach you.
        </p>
        <TextAreaField
          name="refund_policy"
          label={LABELS.refund_policy}
          defaultValue={initial?.refundPolicy}
          rows={4}
          maxLength={REFUND_POLICY_MAX}
          placeholder="Full refund within 14 days of purchase if the software does not work for you; the license is revoked on refund."
          hint={`When and how buyers get their money back, up to ${REFUND_POLICY_MAX.toLocaleString("en")} characters.`}
        />
        <TextField
          name="support_email"
          label={LABELS.support_email}
          type="email"
          defaultValue={initial?.supportEmail ?? ""}
          autoComplete="email"
          inputMode="email"
          placeholder="support@example.com"
        />
        <TextField
          name="support_url"
          label={LABELS.support_url}
          type="url"
          defaultValue={initial?.supportUrl ?? ""}
          autoComplete="url"
          placeholder="https://example.com/support"
          hint="An https:// address: a help centre, forum or contact form. Give this, the e-mail, or both."
        />
      </fieldset>
      <SubmitButton pendingLabel="Saving…">{submitLabel}</SubmitButton>
    </ActionForm>
  );
}
