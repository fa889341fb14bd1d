import { IdempotencyField } from "@/components/forms/idempotency-field";
import { ActionForm, SelectField, SubmitButton, TextField } from "./form-fields";
import type { FormState } from "./form-state";

const LABELS = { product_id: "Product", buyer_email: "Recipient's e-mail", max_machines: "Machines" };

/** A free license for press, giveaways or support; e-mailed to the recipient like a purchase. */
export function ComplimentaryForm({
  action,
  products,
  idempotencyKey,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  products: Array<{ id: string; name: string; maxMachines: number; status: string }>;
  /** Made when the page is drawn (see IdempotencyField): a second click issues no second license. */
  idempotencyKey: string;
}) {
  return (
    <ActionForm action={action} prefix="comp" labels={LABELS} label="Issue a complimentary license" className="space-y-5">
      <IdempotencyField value={idempotencyKey} />
      <SelectField
        name="product_id"
        label={LABELS.product_id}
        placeholder="Choose a product"
        required
        options={products.map((p) => ({
          value: p.id,
          label: `${p.name} (${p.maxMachines} ${p.maxMachines === 1 ? "machine" : "machines"})${p.status === "active" ? "" : " — unlisted"}`,
        }))}
      />
      <TextField
        name="buyer_email"
        label={LABELS.buyer_email}
        type="email"
        required
        autoComplete="off"
        placeholder="reviewer@example.com"
        hint="The key is e-mailed there at once, on your behalf. Daily limits apply: at most 2 to one address."
      />
      <TextField
        name="max_machines"
        label={LABELS.max_machines}
        type="number"
        min={1}
        max={100}
        step={1}
        optional
        hint="Leave empty for the product's usual number."
      />
      <SubmitButton pendingLabel="Issuing…">Issue license</SubmitButton>
    </ActionForm>
  );
}
