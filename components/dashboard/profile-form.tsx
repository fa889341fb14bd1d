import { ActionForm, SubmitButton, TextAreaField, TextField } from "./form-fields";
import type { FormState } from "./form-state";

const LABELS = { name: "Developer or studio name", website: "Website", bio: "About you" };

export function ProfileForm({
  action,
  initial,
  submitLabel,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  initial?: { name: string; website: string | null; bio: string };
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
      <SubmitButton pendingLabel="Saving…">{submitLabel}</SubmitButton>
    </ActionForm>
  );
}
