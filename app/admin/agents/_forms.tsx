"use client";

import { useActionState, useId } from "react";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { buttonPrimary, buttonSecondary, inputBase } from "@/components/ui/styles";
import { registerPlatformAction, rotateSecretAction, type SecretState } from "./actions";

/** The key or secret, once, selectable, with the reason it will not be shown again. */
function Reveal({ state, what }: { state: SecretState; what: string }) {
  return (
    <div role="status" id="agent-secret" className="mt-4 space-y-3 rounded-xl border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
      <p className="font-semibold">
        {what} for {state.name}. Copy {state.apiKey ? "them" : "it"} now: {state.apiKey ? "they are" : "it is"} not shown again.
      </p>
      {state.apiKey ? (
        <div>
          <p className="text-xs font-medium">API key (Authorization: Bearer …)</p>
          <code id="agent-api-key" className="mt-1 block rounded-md bg-white px-2 py-1.5 font-mono text-xs break-all select-all">
            {state.apiKey}
          </code>
        </div>
      ) : null}
      {state.webhookSecret ? (
        <div>
          <p className="text-xs font-medium">Webhook signing secret (Merchant-Signature)</p>
          <code id="agent-webhook-secret" className="mt-1 block rounded-md bg-white px-2 py-1.5 font-mono text-xs break-all select-all">
            {state.webhookSecret}
          </code>
        </div>
      ) : null}
    </div>
  );
}

function Problem({ message, id }: { message?: string; id?: string }) {
  if (!message) return null;
  return (
    <p role="alert" id={id} className="mt-3 rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm font-medium text-red-900">
      {message}
    </p>
  );
}

/**
 * Registers a platform; the answer shows its key and webhook secret this once. The idempotency key is made when the
 * page is drawn: a second submission of the same form (a double click) shows the first answer, not a second platform.
 */
export function RegisterPlatformForm({ idempotencyKey }: { idempotencyKey: string }) {
  const [state, action, pending] = useActionState(registerPlatformAction, {});
  const id = useId();
  return (
    <div>
      <form
        // A fresh form after each answer, holding what was typed when it was refused.
        key={state.nonce ?? "new"}
        action={action}
        aria-label="Register an agent platform"
        className="grid gap-3 sm:grid-cols-[1fr_2fr_auto] sm:items-end"
      >
        <IdempotencyField value={idempotencyKey} />
        <div>
          <label htmlFor={`${id}-name`} className="block text-sm font-medium text-slate-900">
            Name
          </label>
          <input
            id={`${id}-name`}
            name="name"
            required
            minLength={2}
            maxLength={100}
            defaultValue={state.values?.name}
            className={`${inputBase} mt-1.5`}
          />
        </div>
        <div>
          <label htmlFor={`${id}-url`} className="block text-sm font-medium text-slate-900">
            Webhook URL (optional)
          </label>
          <input
            id={`${id}-url`}
            name="webhook_url"
            type="url"
            maxLength={2000}
            defaultValue={state.values?.webhook_url}
            placeholder="https://agent.example.com/acp/order_events"
            className={`${inputBase} mt-1.5`}
          />
        </div>
        <button type="submit" className={buttonPrimary} disabled={pending}>
          Register platform
        </button>
      </form>
      <Problem message={state.error} id="agent-register-error" />
      {state.apiKey ? <Reveal state={state} what="The platform's API key and webhook secret" /> : null}
    </div>
  );
}

/** Issues a new webhook secret for one platform and shows it this once. */
export function RotateSecretForm({ platformId }: { platformId: string }) {
  const [state, action, pending] = useActionState(rotateSecretAction, {});
  return (
    <div>
      <form action={action}>
        <input type="hidden" name="id" value={platformId} />
        <button type="submit" className={`${buttonSecondary} px-2.5 py-1.5`} disabled={pending}>
          New webhook secret
        </button>
      </form>
      <Problem message={state.error} />
      {state.webhookSecret ? <Reveal state={state} what="A new webhook secret" /> : null}
    </div>
  );
}
