"use client";

import { buttonDanger } from "@/components/dashboard/buttons";
import { ActionForm, CheckboxField, ChoiceGroup, SubmitButton, TextField } from "@/components/dashboard/form-fields";
import type { FormState } from "@/components/dashboard/form-state";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { RefundAmountLine } from "@/components/dashboard/refund-amount-line";

const LABELS = { kind: "Refund", amount: "Amount", reason: "Reason", confirm: "Confirmation" };

/**
 * Refund all that remains or a part of it, with a reason the buyer reads in their e-mail. The confirmation box says
 * what happens, so the seller never refunds (or revokes a license) by a stray click; the line under the amount says
 * what will be refunded to whom, as it is typed.
 */
export function RefundForm({
  action,
  remainingDisplay,
  remainingCents,
  currency,
  buyerEmail,
  placeholder,
  idempotencyKey,
}: {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  /** Made when the page is drawn (see IdempotencyField): a second click refunds nothing more. */
  idempotencyKey: string;
  /** What can still be refunded, formatted with its code. */
  remainingDisplay: string;
  remainingCents: number;
  /** The order's currency, as stored. */
  currency: string;
  buyerEmail: string;
  placeholder: string;
}) {
  return (
    <ActionForm action={action} prefix="refund" labels={LABELS} label="Refund this order" className="space-y-5">
      <IdempotencyField value={idempotencyKey} />
      <ChoiceGroup
        name="kind"
        legend={LABELS.kind}
        type="radio"
        columns="sm:grid-cols-2"
        defaultValue="full"
        options={[
          {
            value: "full",
            label: `Everything that remains (${remainingDisplay})`,
            description: "The license is revoked; apps are told the purchase was refunded.",
          },
          { value: "partial", label: "Part of it", description: "The license keeps working." },
        ]}
      />
      <RefundAmountLine id="refund-amount-understood" currency={currency} buyerEmail={buyerEmail} remainingCents={remainingCents} kindField="kind">
        <TextField
          name="amount"
          label={`${LABELS.amount} in ${currency.toUpperCase()}`}
          inputMode="decimal"
          optional
          placeholder={placeholder}
          hint="Only for a partial refund: the amount to give back, tax included."
          maxLength={32}
        />
      </RefundAmountLine>
      <TextField name="reason" label={LABELS.reason} required maxLength={500} hint="One line; the buyer sees it in the refund e-mail." />
      <CheckboxField
        name="confirm"
        label="I understand the money goes back to the buyer's payment method and cannot be taken back."
        hint="The platform's fee on the refunded part is returned to you."
      />
      <SubmitButton pendingLabel="Refunding…" className={buttonDanger}>
        Refund
      </SubmitButton>
    </ActionForm>
  );
}
