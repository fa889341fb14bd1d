"use client";

import { IdempotencyField } from "@/components/forms/idempotency-field";
import { useActionState, type ReactNode, type SubmitEvent } from "react";
import { useFormStatus } from "react-dom";
import { buttonPrimary, inputBase } from "@/components/ui/styles";
import { buttonSmall } from "./buttons";
import { EMPTY_WEBHOOK_STATE, type WebhookFormState } from "./webhook-state";

/**
 * The webhooks page's client forms. A signing secret exists in the browser only in the answer to the action that made
 * it (creation, rotation): it is never in a URL, a redirect or the page's HTML on a later visit.
 */

type Action = (state: WebhookFormState, fd: FormData) => Promise<WebhookFormState>;

function Pending({ children, pending }: { children: ReactNode; pending: string }) {
  const status = useFormStatus();
  return (
    <button type="submit" disabled={status.pending} aria-disabled={status.pending} className={buttonPrimary}>
      {status.pending ? pending : children}
    </button>
  );
}

function SecretOnce({ secret, url }: { secret: string; url: string | null }) {
  return (
    <div role="status" className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-950">
      <p className="font-semibold">Signing secret{url ? ` for ${url}` : ""}: copy it now, it is not shown again.</p>
      <code data-testid="webhook-secret" className="mt-2 block font-mono text-sm break-all select-all">
        {secret}
      </code>
      <p className="mt-2">Verify each request with it: new Webhook(secret).verify(body, headers) from the standardwebhooks library.</p>
    </div>
  );
}

/** A new endpoint: URL, a note, and the events it receives (none ticked: all of them). */
export function WebhookCreateForm({ action, events, idempotencyKey }: { action: Action; events: readonly string[]; idempotencyKey: string }) {
  const [state, formAction] = useActionState(action, EMPTY_WEBHOOK_STATE);
  return (
    <div className="space-y-5">
      {state.secret ? <SecretOnce secret={state.secret} url={state.url} /> : null}
      <form action={formAction} aria-label="Add a webhook endpoint" className="space-y-5">
        <IdempotencyField value={idempotencyKey} />
        {state.error ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
            {state.error}
          </p>
        ) : null}
        <div>
          <label htmlFor="webhook-url" className="block text-sm font-medium text-slate-900">
            Endpoint URL
          </label>
          <input
            id="webhook-url"
            name="url"
            type="url"
            required
            maxLength={2000}
            placeholder="https://example.com/webhooks/licenses"
            defaultValue={state.secret ? "" : state.values.url}
            className={`${inputBase} mt-1`}
          />
          <p className="mt-1 text-sm text-slate-600">https, on a public address: private, loopback and link-local targets are refused.</p>
        </div>
        <div>
          <label htmlFor="webhook-description" className="block text-sm font-medium text-slate-900">
            Description <span className="font-normal text-slate-500">(optional)</span>
          </label>
          <input
            id="webhook-description"
            name="description"
            maxLength={200}
            defaultValue={state.secret ? "" : state.values.description}
            className={`${inputBase} mt-1`}
          />
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-slate-900">Events</legend>
          <p className="mt-1 text-sm text-slate-600">Tick none to receive every event, including types added later.</p>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {events.map((e) => (
              <label key={e} className="flex items-center gap-2 text-sm text-slate-800">
                <input
                  type="checkbox"
                  name="events"
                  value={e}
                  defaultChecked={!state.secret && state.values.events.includes(e)}
                  className="h-4 w-4"
                />
                <code className="font-mono">{e}</code>
              </label>
            ))}
          </div>
        </fieldset>
        <Pending pending="Adding…">Add endpoint</Pending>
      </form>
    </div>
  );
}

/** Rotates the secret after a confirmation; the new one shows once, in place. */
export function WebhookRotateForm({ action, url }: { action: Action; url: string }) {
  const [state, formAction] = useActionState(action, EMPTY_WEBHOOK_STATE);
  const confirmFirst = (event: SubmitEvent<HTMLFormElement>) => {
    if (!window.confirm(`Rotate the signing secret of ${url}? The current secret stops verifying at once.`)) event.preventDefault();
  };
  return (
    <div className="space-y-3">
      <form action={formAction} onSubmit={confirmFirst}>
        <button type="submit" className={buttonSmall}>
          Rotate secret
        </button>
      </form>
      {state.error ? (
        <p role="alert" className="text-sm text-red-800">
          {state.error}
        </p>
      ) : null}
      {state.secret ? <SecretOnce secret={state.secret} url={null} /> : null}
    </div>
  );
}

/** A button whose form posts only after the seller confirms (deleting an endpoint). */
export function ConfirmSubmit({
  action,
  question,
  children,
  className,
}: {
  action: () => Promise<void>;
  question: string;
  children: ReactNode;
  className?: string;
}) {
  const confirmFirst = (event: SubmitEvent<HTMLFormElement>) => {
    if (!window.confirm(question)) event.preventDefault();
  };
  return (
    <form action={action} onSubmit={confirmFirst}>
      <button type="submit" className={className ?? buttonSmall}>
        {children}
      </button>
    </form>
  );
}
