import { buttonDanger, buttonSmall } from "./buttons";

/**
 * Revoke behind a confirmation: the first button only opens the question (a disclosure, so it works without
 * JavaScript and the keyboard reaches it in order); the second revokes. Anything using the token fails from its next call.
 */
export function ApiTokenRevoke({ action, name }: { action: () => Promise<void>; name: string }) {
  return (
    <details className="group">
      <summary className={`${buttonSmall} cursor-pointer list-none [&::-webkit-details-marker]:hidden`}>
        Revoke<span className="sr-only"> token {name}</span>
      </summary>
      <div className="mt-2 w-64 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-950">
        <p>Revoke “{name}”? Every script or agent using it is refused from its next call. This cannot be undone.</p>
        <form action={action} className="mt-3">
          <button type="submit" className={`${buttonDanger} px-3 py-1.5`}>
            Revoke token<span className="sr-only"> {name}</span>
          </button>
        </form>
      </div>
    </details>
  );
}
