import { ActionForm, SelectField, SubmitButton, TextField } from "@/components/dashboard/form-fields";
import type { FormState } from "@/components/dashboard/form-state";
import { IdempotencyField } from "@/components/forms/idempotency-field";

const LABELS = {
  product_id: "Product",
  name: "Name",
  slug: "Address",
  quantity: "Seats",
  coupon_code: "Coupon",
  interval: "Billing",
  expires_on: "Expires after",
  max_uses: "Use limit",
};

/** The seller's form for a new checkout link. */
export function LinkForm({
  action,
  products,
  coupons,
  linkBase,
  idempotencyKey,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  products: Array<{ id: string; name: string }>;
  coupons: Array<{ code: string; label: string }>;
  /** The address every link of this seller starts with, shown before the slug. */
  linkBase: string;
  /** Made when the page is drawn (see IdempotencyField): a second click creates no second link. */
  idempotencyKey: string;
}) {
  return (
    <ActionForm action={action} prefix="link" labels={LABELS} label="Create a checkout link" className="space-y-5">
      <IdempotencyField value={idempotencyKey} />
      <SelectField
        name="product_id"
        label={LABELS.product_id}
        required
        placeholder="Choose a product…"
        options={products.map((p) => ({ value: p.id, label: p.name }))}
      />
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField name="name" label={LABELS.name} required maxLength={100} placeholder="Newsletter, March" hint="Only you see it." />
        <TextField
          name="slug"
          label={LABELS.slug}
          required
          maxLength={64}
          autoComplete="off"
          spellCheck={false}
          placeholder="march-newsletter"
          hint={`${linkBase}/…: lower-case letters, digits and dashes.`}
        />
      </div>
      <div className="grid gap-5 sm:grid-cols-3">
        <TextField
          name="quantity"
          label={LABELS.quantity}
          type="number"
          min={1}
          max={100}
          step={1}
          defaultValue="1"
          hint="More than one only for per-seat and per-user products."
        />
        <SelectField
          name="coupon_code"
          label={LABELS.coupon_code}
          placeholder="None"
          options={coupons.map((c) => ({ value: c.code, label: c.label }))}
          hint="Applied to every purchase through the link."
        />
        <SelectField
          name="interval"
          label={LABELS.interval}
          placeholder="The product's default"
          options={[
            { value: "month", label: "Monthly" },
            { value: "year", label: "Yearly" },
          ]}
          hint="Subscription products only."
        />
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField
          name="expires_on"
          label={LABELS.expires_on}
          optional
          placeholder="YYYY-MM-DD"
          maxLength={10}
          hint="The link works through the end of this day (UTC). Empty: it never expires."
        />
        <TextField
          name="max_uses"
          label={LABELS.max_uses}
          type="number"
          min={1}
          step={1}
          optional
          hint="How many purchases it may make; an unpaid checkout holds one until it closes."
        />
      </div>
      <SubmitButton pendingLabel="Creating…">Create link</SubmitButton>
    </ActionForm>
  );
}
