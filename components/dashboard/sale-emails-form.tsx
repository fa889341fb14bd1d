import { ActionForm, ChoiceGroup, SubmitButton } from "./form-fields";
import type { FormState } from "./form-state";

const LABELS = { sale_emails: "E-mail me about sales" };

/** The seller's choice of sale e-mails (lib/seller-mail/sale-emails.ts): each sale, a daily digest, or none. */
export function SaleEmailsForm({ action, initial }: { action: (state: FormState, formData: FormData) => Promise<FormState>; initial: string }) {
  return (
    <ActionForm action={action} prefix="sale-emails" labels={LABELS} label="Sale e-mails" className="mt-3 space-y-4">
      <ChoiceGroup
        name="sale_emails"
        legend={LABELS.sale_emails}
        type="radio"
        defaultValue={initial}
        columns="grid-cols-1"
        options={[
          { value: "each", label: "On each sale", description: "Product, amount, seats and a link to the order." },
          { value: "daily", label: "Daily digest", description: "One e-mail a day with sales (UTC days), totals per currency." },
          { value: "off", label: "Off", description: "Sales stay on the Sales and Orders pages." },
        ]}
      />
      <SubmitButton pendingLabel="Saving…">Save sale e-mails</SubmitButton>
    </ActionForm>
  );
}
