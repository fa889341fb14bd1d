import { SUPPORTED_CURRENCIES, currencyLabel } from "@/lib/pricing";
import { ActionForm, ChoiceGroup, SelectField, SubmitButton, TextField } from "@/components/dashboard/form-fields";
import type { FormState } from "@/components/dashboard/form-state";
import { IdempotencyField } from "@/components/forms/idempotency-field";

const LABELS = {
  code: "Code",
  kind: "Discount",
  percent_off: "Percent off",
  amount_off: "Amount off",
  currency: "Currency of the amount",
  expires_on: "Expires after",
  max_redemptions: "Redemption limit",
  product_ids: "Products",
};

/** The seller's form for a new discount code. */
export function CouponForm({
  action,
  products,
  idempotencyKey,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  products: Array<{ id: string; name: string; currency: string }>;
  /** Made when the page is drawn (see IdempotencyField): a second click creates no second coupon. */
  idempotencyKey: string;
}) {
  return (
    <ActionForm action={action} prefix="coupon" labels={LABELS} label="Create a coupon" className="space-y-5">
      <IdempotencyField value={idempotencyKey} />
      <TextField
        name="code"
        label={LABELS.code}
        required
        maxLength={32}
        autoComplete="off"
        spellCheck={false}
        placeholder="LAUNCH25"
        hint="3 to 32 letters, digits, - or _. Buyers may type it in any case; it is stored in capitals."
      />
      <ChoiceGroup
        name="kind"
        legend={LABELS.kind}
        type="radio"
        defaultValue="percent"
        columns="sm:grid-cols-2"
        options={[
          { value: "percent", label: "A percentage", description: "Of the price of every seat bought." },
          { value: "amount", label: "A fixed amount", description: "Off the whole purchase, for products priced in its currency." },
        ]}
      />
      <div className="grid gap-5 sm:grid-cols-3">
        <TextField name="percent_off" label={LABELS.percent_off} type="number" min={1} max={100} step={1} hint="For a percentage: 1 to 100." />
        <TextField name="amount_off" label={LABELS.amount_off} inputMode="decimal" placeholder="5.00" hint="For a fixed amount." />
        <SelectField
          name="currency"
          label={LABELS.currency}
          defaultValue="usd"
          options={SUPPORTED_CURRENCIES.map((c) => ({ value: c, label: currencyLabel(c) }))}
        />
      </div>
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField
          name="expires_on"
          label={LABELS.expires_on}
          optional
          placeholder="YYYY-MM-DD"
          maxLength={10}
          hint="The code works through the end of this day (UTC). Empty: it never expires."
        />
        <TextField
          name="max_redemptions"
          label={LABELS.max_redemptions}
          type="number"
          min={1}
          step={1}
          optional
          hint="How many purchases may use it; an unpaid checkout holds one until it expires."
        />
      </div>
      {products.length > 0 ? (
        <ChoiceGroup
          name="product_ids"
          legend={LABELS.product_ids}
          type="checkbox"
          defaultValue={[]}
          columns="sm:grid-cols-2"
          hint="Leave all unticked for every product of yours."
          options={products.map((p) => ({ value: p.id, label: p.name, description: `Priced in ${p.currency.toUpperCase()}` }))}
        />
      ) : null}
      <p className="text-sm text-slate-600">
        A discount never takes a purchase below 0.50 of its currency (the smallest card payment); such a code is refused at checkout. The
        platform&apos;s 5 % fee is on what the buyer pays after the discount.
      </p>
      <SubmitButton pendingLabel="Creating…">Create coupon</SubmitButton>
    </ActionForm>
  );
}
