import { randomUUID } from "node:crypto";
import type { Metadata } from "next";
import Link from "next/link";
import { currentBuyer } from "@/lib/auth/next-session";
import { licensesWithFreeSeats } from "@/lib/device/read-request";
import type { DeviceRequestView } from "@/lib/device/schemas";
import { runOperation } from "@/lib/transports/action";
import { queryText } from "@/components/licenses/format";
import { Message } from "@/components/licenses/message";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { DEVICE_ERRORS, deviceErrorText, deviceRefusal, devicePagePath } from "@/components/device/device-messages";
import { buttonPrimary, buttonSecondary, card, container, inputBase, textLink } from "@/components/ui/styles";
import { approveDeviceAction, buyForDeviceAction, denyDeviceAction } from "./actions";

export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: "Activate an app",
  description: "Enter the code your app shows, then buy a license or use one you have: the app activates itself.",
  robots: { index: false },
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * Where an app sends its buyer (RFC 8628's verification page): the code the app shows, the product and the machine
 * it is for, and three choices: buy, use a license already held (after signing in to My licenses), or deny. The code
 * is looked up through the lookupDeviceCode operation, so every look counts against the per-client limit on codes.
 */
export default async function DevicePage({ searchParams }: Props) {
  const query = await searchParams;
  const typed = queryText(query.user_code, 20);
  const error = deviceErrorText(queryText(query.error, 40) || undefined);
  const done = queryText(query.done, 20);

  let body;
  if (!typed) {
    body = <CodeForm error={error} />;
  } else {
    const outcome = await runOperation<DeviceRequestView>("lookupDeviceCode", { body: { user_code: typed } });
    if (!outcome.ok) {
      body = <CodeForm error={DEVICE_ERRORS[deviceRefusal(outcome.problem)]} typed={typed} />;
    } else {
      body = <Request view={outcome.output} error={error} done={done} />;
    }
  }

  return (
    <div className={`${container} py-10 sm:py-14`}>
      <div className="mx-auto w-full max-w-2xl">
        <p className="text-sm font-medium text-indigo-700">No key to copy</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">Activate an app</h1>
        <div className="mt-8">{body}</div>
      </div>
    </div>
  );
}

function CodeForm({ error, typed }: { error: string | null; typed?: string }) {
  return (
    <section aria-labelledby="code-heading" className={`${card} p-6 sm:p-8`}>
      <h2 id="code-heading" className="text-lg font-semibold text-slate-900">
        Enter the code your app shows
      </h2>
      <form method="get" action="/device" className="mt-5 space-y-4">
        {error ? (
          <Message id="device-error" tone="error">
            {error}
          </Message>
        ) : null}
        <div>
          <label htmlFor="user-code" className="block text-sm font-medium text-slate-800">
            Code
          </label>
          <input
            id="user-code"
            name="user_code"
            required
            maxLength={9}
            defaultValue={typed}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="WDJB-MJHT"
            aria-describedby={error ? "device-error" : undefined}
            className={`${inputBase} mt-1.5 font-mono text-lg tracking-widest uppercase`}
          />
        </div>
        <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
          Continue
        </button>
      </form>
    </section>
  );
}

function machineWords(view: DeviceRequestView): string {
  const m = view.machine;
  const parts = [m.platform, m.app_version ? `version ${m.app_version}` : null].filter(Boolean);
  return `${m.name ?? "A computer"}${parts.length ? ` (${parts.join(", ")})` : ""}`;
}

async function Request({ view, error, done }: { view: DeviceRequestView; error: string | null; done: string }) {
  const summary = (
    <dl className="grid gap-x-4 gap-y-1 text-sm leading-6 text-slate-700 sm:grid-cols-[auto_1fr]" data-testid="device-request">
      <dt className="font-medium text-slate-900">Code</dt>
      <dd className="font-mono">{view.user_code}</dd>
      <dt className="font-medium text-slate-900">App</dt>
      <dd>
        {view.product.name} by {view.product.seller}
      </dd>
      <dt className="font-medium text-slate-900">Computer</dt>
      <dd>{machineWords(view)}</dd>
    </dl>
  );
  if (view.status !== "pending") {
    const finished = {
      completed:
        done === "approved"
          ? `Done: ${view.product.name} on ${view.machine.name ?? "that computer"} is activated. You can close this page; the app finishes on its own.`
          : DEVICE_ERRORS.completed,
      approved: DEVICE_ERRORS.completed,
      denied: done === "denied" ? "Denied: the app was told, and nothing was activated. You can close this page." : DEVICE_ERRORS.denied,
      expired: DEVICE_ERRORS.expired,
    }[view.status];
    return (
      <section className={`${card} space-y-5 p-6 sm:p-8`}>
        <Message id="device-status" tone={view.status === "completed" ? "success" : view.status === "denied" && done === "denied" ? "info" : "error"}>
          {finished}
        </Message>
        {summary}
      </section>
    );
  }

  const buyer = await currentBuyer();
  const licenses = buyer ? await licensesWithFreeSeats(view.product.id, buyer.email) : [];
  const back = devicePagePath(view.user_code);
  return (
    <div className="space-y-6">
      <section className={`${card} space-y-4 p-6 sm:p-8`}>
        <p className="text-base leading-7 text-slate-800">Check that this is the code your app shows, then choose how to license it.</p>
        {error ? (
          <Message id="device-error" tone="error">
            {error}
          </Message>
        ) : null}
        {view.checkout_started ? (
          <Message id="device-checkout" tone="info">
            A checkout was opened for this app. Once it is paid, the app activates itself within a few seconds.
          </Message>
        ) : null}
        {summary}
      </section>

      <section aria-labelledby="buy-heading" className={`${card} p-6 sm:p-8`}>
        <h2 id="buy-heading" className="text-lg font-semibold text-slate-900">
          Buy a license
        </h2>
        <p className="mt-1 text-sm leading-6 text-slate-700">
          Pay at the usual checkout; the app then activates itself on this computer. The key and the receipt are also e-mailed to you.
        </p>
        <form action={buyForDeviceAction} className="mt-4 space-y-4">
          <input type="hidden" name="user_code" value={view.user_code} />
          <IdempotencyField value={randomUUID()} />
          <div>
            <label htmlFor="device-buyer-email" className="block text-sm font-medium text-slate-800">
              E-mail address
            </label>
            <input
              id="device-buyer-email"
              type="email"
              name="buyer_email"
              required
              maxLength={254}
              autoComplete="email"
              defaultValue={buyer?.email}
              placeholder="you@example.com"
              className={`${inputBase} mt-1.5`}
            />
          </div>
          <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
            Buy {view.product.name}
          </button>
        </form>
      </section>

      <section aria-labelledby="held-heading" className={`${card} p-6 sm:p-8`}>
        <h2 id="held-heading" className="text-lg font-semibold text-slate-900">
          Use a license I already have
        </h2>
        {!buyer ? (
          <form method="post" action="/auth/sign-in" className="mt-4 space-y-4">
            <p className="text-sm leading-6 text-slate-700">Sign in with the e-mail you bought with; the link brings you back here. No password.</p>
            <input type="hidden" name="purpose" value="buyer" />
            <input type="hidden" name="next" value={back} />
            <div>
              <label htmlFor="device-sign-in-email" className="block text-sm font-medium text-slate-800">
                E-mail address
              </label>
              <input
                id="device-sign-in-email"
                type="email"
                name="email"
                required
                maxLength={254}
                autoComplete="email"
                placeholder="you@example.com"
                className={`${inputBase} mt-1.5`}
              />
            </div>
            <button type="submit" className={`${buttonSecondary} w-full py-3 text-base`}>
              Send sign-in link
            </button>
          </form>
        ) : licenses.length === 0 ? (
          <p className="mt-2 text-sm leading-6 text-slate-700">
            Signed in as {buyer.email}: you have no license of {view.product.name} with a free seat. Release a machine in{" "}
            <Link href="/licenses" className={textLink}>
              My licenses
            </Link>
            , or buy one above.
          </p>
        ) : (
          <ul className="mt-4 space-y-3">
            {licenses.map((l) => (
              <li key={l.id} className="flex flex-col gap-3 rounded-xl border border-slate-200 p-4 sm:flex-row sm:items-center sm:justify-between">
                <span className="text-sm leading-6 text-slate-700">
                  <span className="font-mono text-slate-900">{l.key}</span>
                  <br />
                  {l.activeMachines} of {l.maxMachines} machines in use
                </span>
                <form action={approveDeviceAction}>
                  <input type="hidden" name="user_code" value={view.user_code} />
                  <input type="hidden" name="license_id" value={l.id} />
                  <IdempotencyField value={randomUUID()} />
                  <button type="submit" className={buttonPrimary}>
                    Activate with this license
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="deny-heading" className={`${card} p-6 sm:p-8`}>
        <h2 id="deny-heading" className="text-lg font-semibold text-slate-900">
          Not you?
        </h2>
        <p className="mt-1 text-sm leading-6 text-slate-700">If you did not start this from your app, deny it: nothing is activated.</p>
        <form action={denyDeviceAction} className="mt-4">
          <input type="hidden" name="user_code" value={view.user_code} />
          <button type="submit" className={buttonSecondary}>
            Deny
          </button>
        </form>
      </section>
    </div>
  );
}
