"use client";

import { useActionState, useEffect, useRef, useState } from "react";
import { useFormStatus } from "react-dom";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonPrimary, buttonSecondary, focusRing, inputBase } from "@/components/ui/styles";
import type { FormState } from "./form-state";

/** What the create action answers: a refused form, or the new token (its only showing). */
export interface TokenFormState extends FormState {
  created: { id: string; token: string; name: string; scopes: string[]; expires_at: string | null } | null;
}

const INITIAL: TokenFormState = { message: null, errors: {}, values: {}, created: null };

const EXPIRIES = [
  { value: "never", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
];

const LABELS: Record<string, string> = { name: "Name", scopes: "Scopes", expiry: "Expires" };

/**
 * The seller's form for a new API token, and the panel that shows the token once it exists. The panel is announced
 * (aria-live) and takes the focus; it stays until the seller dismisses it, and is gone for good after a reload.
 */
export function ApiTokenForm({
  action,
  scopes,
  idempotencyKey,
}: {
  action: (state: TokenFormState, formData: FormData) => Promise<TokenFormState>;
  scopes: ReadonlyArray<{ value: string; label: string; description: string }>;
  /** Made when the page is drawn (see IdempotencyField); a new one comes with the page redrawn after each token. */
  idempotencyKey: string;
}) {
  const [state, formAction] = useActionState(action, INITIAL);
  // The token shown until the seller dismisses it; a later refused submission does not hide it.
  const [shown, setShown] = useState<{ from: TokenFormState; created: TokenFormState["created"] }>({ from: INITIAL, created: null });
  if (state.created && shown.from !== state) setShown({ from: state, created: state.created });
  const current = shown.from === state || !state.created ? shown.created : state.created;
  const problems = useRef<HTMLDivElement>(null);
  const panel = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    if (state.message) problems.current?.focus();
    else if (state.created) panel.current?.focus();
  }, [state]);

  const values = state.values;
  const chosen = new Set(Array.isArray(values.scopes) ? values.scopes : typeof values.scopes === "string" ? [values.scopes] : ["read"]);
  const err = (name: string) => state.errors[name] ?? [];
  const fieldProblems = Object.entries(state.errors).filter(([name]) => name !== "_form");

  return (
    <div className="space-y-6">
      <div aria-live="polite">
        {current ? (
          <div className="rounded-xl border border-amber-300 bg-amber-50 p-5 text-sm text-amber-950">
            <h3 ref={panel} tabIndex={-1} className={`rounded-sm text-base font-semibold ${focusRing}`}>
              Your new token “{current.name}”
            </h3>
            <p className="mt-1 font-medium">Copy it now: you won&apos;t see it again. We keep only a hash of it.</p>
            <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:items-center">
              <code
                id="new-api-token"
                data-testid="new-api-token"
                className="block min-w-0 flex-1 overflow-x-auto rounded-lg border border-amber-300 bg-white px-3 py-2 font-mono text-sm break-all text-slate-900"
              >
                {current.token}
              </code>
              <CopyButton text={current.token} label="API token" selectTargetId="new-api-token" />
            </div>
            <p className="mt-3 text-amber-900">
              Send it as <code className="font-mono">Authorization: Bearer …</code> to the seller API (/api/v1, described in /openapi.json) or to MCP.
              Scopes: {current.scopes.join(", ")}.{" "}
              {current.expires_at ? `It stops working on ${current.expires_at.slice(0, 10)}.` : "It does not expire."}
            </p>
            <button type="button" onClick={() => setShown({ from: state, created: null })} className={`${buttonSecondary} mt-4`}>
              I have copied it
            </button>
          </div>
        ) : null}
      </div>

      <form action={formAction} aria-label="Create an API token" className="space-y-5" noValidate>
        <IdempotencyField value={idempotencyKey} />
        {state.message ? (
          <div
            ref={problems}
            role="alert"
            tabIndex={-1}
            className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700"
          >
            <p className="font-semibold">{state.message}</p>
            {fieldProblems.length > 0 ? (
              <ul className="mt-2 list-disc space-y-1 pl-5">
                {fieldProblems.map(([name, messages]) => (
                  <li key={name}>
                    <a href={`#token-${name}`} className={`rounded-sm underline underline-offset-2 ${focusRing}`}>
                      {LABELS[name] ?? name}
                    </a>
                    : {messages.join(" ")}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}

        <div>
          <label htmlFor="token-name" className="block text-sm font-medium text-slate-900">
            {LABELS.name}
          </label>
          <input
            id="token-name"
            name="name"
            type="text"
            required
            maxLength={80}
            autoComplete="off"
            placeholder="GitHub Actions"
            defaultValue={typeof values.name === "string" ? values.name : ""}
            aria-invalid={err("name").length > 0 || undefined}
            aria-describedby={`token-name-hint${err("name").length ? " token-name-error" : ""}`}
            className={`${inputBase} mt-1.5 ${err("name").length ? "border-red-600" : ""}`}
          />
          <p id="token-name-hint" className="mt-1.5 text-sm text-slate-600">
            What uses it, so you know which one to revoke. Shown in the list and in license event logs as token:&lt;name&gt;.
          </p>
          <FieldError id="token-name-error" errors={err("name")} />
        </div>

        <fieldset id="token-scopes" tabIndex={-1} aria-describedby={err("scopes").length ? "token-scopes-error" : undefined} className="min-w-0">
          <legend className="block text-sm font-medium text-slate-900">{LABELS.scopes}</legend>
          <p className="mt-1.5 text-sm text-slate-600">Give it only what it needs. Payouts and token management always need this dashboard.</p>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {scopes.map((s) => (
              <label
                key={s.value}
                htmlFor={`token-scope-${s.value}`}
                className={`flex cursor-pointer items-start gap-3 rounded-lg border bg-white px-3 py-2.5 text-sm shadow-sm has-[:checked]:border-indigo-600 has-[:checked]:bg-indigo-50 ${
                  err("scopes").length ? "border-red-600" : "border-slate-300"
                }`}
              >
                <input
                  id={`token-scope-${s.value}`}
                  type="checkbox"
                  name="scopes"
                  value={s.value}
                  defaultChecked={chosen.has(s.value)}
                  className={`mt-0.5 size-4 shrink-0 rounded border-slate-400 accent-indigo-600 ${focusRing}`}
                />
                <span>
                  <span className="font-medium text-slate-900">{s.label}</span>
                  <span className="block text-slate-600">{s.description}</span>
                </span>
              </label>
            ))}
          </div>
          <FieldError id="token-scopes-error" errors={err("scopes")} />
        </fieldset>

        <div>
          <label htmlFor="token-expiry" className="block text-sm font-medium text-slate-900">
            {LABELS.expiry}
          </label>
          <select
            id="token-expiry"
            name="expiry"
            defaultValue={typeof values.expiry === "string" && values.expiry ? values.expiry : "90"}
            aria-invalid={err("expiry").length > 0 || undefined}
            aria-describedby={err("expiry").length ? "token-expiry-error" : undefined}
            className={`${inputBase} mt-1.5 max-w-xs pr-8`}
          >
            {EXPIRIES.map((e) => (
              <option key={e.value} value={e.value}>
                {e.label}
              </option>
            ))}
          </select>
          <FieldError id="token-expiry-error" errors={err("expiry")} />
        </div>

        <Submit />
      </form>
    </div>
  );
}

function FieldError({ id, errors }: { id: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <p id={id} className="mt-1.5 text-sm font-medium text-red-700">
      {errors.join(" ")}
    </p>
  );
}

function Submit() {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={buttonPrimary}>
      {pending ? "Creating…" : "Create token"}
    </button>
  );
}
