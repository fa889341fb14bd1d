import { ActionForm, ChoiceGroup, SelectField, SubmitButton, TextField } from "@/components/dashboard/form-fields";
import type { FormState } from "@/components/dashboard/form-state";
import { IdempotencyField } from "@/components/forms/idempotency-field";

const LABELS = {
  from_product_id: "Upgrade from",
  to_product_id: "Upgrade to",
  pricing: "Price",
  price: "Price of one seat",
  retire_source: "The old license",
};

/** The seller's form for a new upgrade offer between two of their products. */
export function UpgradeOfferForm({
  action,
  products,
  idempotencyKey,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  products: Array<{ id: string; name: string; currency: string }>;
  /** Made when the page is drawn (see IdempotencyField): a second click creates no second offer. */
  idempotencyKey: string;
}) {
  const options = products.map((p) => ({ value: p.id, label: `${p.name} (${p.currency.toUpperCase()})` }));
  return (
    <ActionForm action={action} prefix="upgrade" labels={LABELS} label="Offer an upgrade" className="space-y-5">
      <IdempotencyField value={idempotencyKey} />
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField
          name="from_product_id"
          label={LABELS.from_product_id}
          options={options}
          placeholder="Choose…"
          required
          hint="What the buyer owns, e.g. the Standard edition."
        />
        <SelectField
          name="to_product_id"
          label={LABELS.to_product_id}
          options={options}
          placeholder="Choose…"
          required
          hint="What they upgrade to, in the same currency."
        />
      </div>
      <ChoiceGroup
        name="pricing"
        legend={LABELS.pricing}
        type="radio"
        defaultValue="difference"
        columns="sm:grid-cols-2"
        options={[
          { value: "difference", label: "Pay the difference", description: "The new product's price less what the buyer paid, per seat." },
          { value: "fixed", label: "A set price", description: "The price below, per seat, whatever they paid." },
        ]}
      />
      <TextField
        name="price"
        label={LABELS.price}
        inputMode="decimal"
        placeholder="29.00"
        optional
        hint="For a set price: in the currency of the product upgraded to."
      />
      <ChoiceGroup
        name="retire_source"
        legend={LABELS.retire_source}
        type="radio"
        defaultValue="retire"
        columns="sm:grid-cols-2"
        options={[
          { value: "retire", label: "Retire it", description: "It stops working once the upgrade is paid; its machines are released." },
          { value: "keep", label: "Let them keep it", description: "Both licenses keep working." },
        ]}
      />
      <p className="text-sm text-slate-600">
        Buyers keep the seats they had. An upgrade never charges below 0.50 of its currency (the smallest card payment); a full refund of the upgrade
        ends the new license and brings the old one back. Subscriptions and bundles cannot be upgraded from or to.
      </p>
      <SubmitButton pendingLabel="Creating…">Offer the upgrade</SubmitButton>
    </ActionForm>
  );
}
