/**
 * The form's idempotency key: made when the page is drawn (pass `crypto.randomUUID()` from the server component), so a
 * second submission of the same form (a double click, a retry after a lost answer) replays the first answer instead
 * of creating or paying twice. A refusal frees the key (nothing happened), so the corrected form may be sent with it.
 */
export function IdempotencyField({ value }: { value: string }) {
  return <input type="hidden" name="idempotency_key" value={value} />;
}
