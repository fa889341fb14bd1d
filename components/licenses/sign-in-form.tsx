import { buttonPrimary, card, inputBase } from "@/components/ui/styles";
import { Message } from "./message";

/**
 * "My licenses" for a visitor without a session: the e-mail they bought with, and a link by mail. No password.
 * `next`: the page of this site the e-mailed link returns to once signed in (a transfer offer, say; else My licenses).
 */
export function BuyerSignInForm({ error, next }: { error: string | null; next?: string }) {
  return (
    <section aria-labelledby="sign-in-heading" className={`${card} p-6 sm:p-8`}>
      <h2 id="sign-in-heading" className="text-lg font-semibold text-slate-900">
        Sign in to see your licenses
      </h2>
      <p className="mt-2 text-sm leading-6 text-pretty text-slate-700">
        Enter the e-mail you bought with; we&rsquo;ll send a sign-in link. No password.
      </p>
      <form method="post" action="/auth/sign-in" className="mt-5 space-y-4">
        <input type="hidden" name="purpose" value="buyer" />
        {next ? <input type="hidden" name="next" value={next} /> : null}
        {error ? (
          <Message id="sign-in-error" tone="error">
            {error}
          </Message>
        ) : null}
        <div>
          <label htmlFor="buyer-sign-in-email" className="block text-sm font-medium text-slate-800">
            E-mail address
          </label>
          <input
            id="buyer-sign-in-email"
            type="email"
            name="email"
            required
            maxLength={254}
            autoComplete="email"
            inputMode="email"
            spellCheck={false}
            placeholder="you@example.com"
            aria-describedby={error ? "sign-in-error" : undefined}
            aria-invalid={error ? true : undefined}
            className={`${inputBase} mt-1.5`}
          />
        </div>
        <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
          Send sign-in link
        </button>
      </form>
    </section>
  );
}
