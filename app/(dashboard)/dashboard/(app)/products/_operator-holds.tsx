import Link from "next/link";
import type { OperatorHolds } from "@/lib/admin/seller-holds";
import { focusRing } from "@/components/ui/styles";

/**
 * The operator's suspension of this seller and the listings it removed, each with the operator's reason, so the
 * seller knows why a listing is gone and that relisting it is not theirs to do.
 */
export function OperatorHoldsNotice({ holds, productId }: { holds: OperatorHolds; productId?: string }) {
  const removed = productId ? holds.removed.filter((p) => p.id === productId) : holds.removed;
  if (!holds.suspension && removed.length === 0) return null;
  return (
    <div className="mb-6 space-y-3">
      {holds.suspension ? (
        <div role="alert" id="seller-suspended" className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
          <p className="font-semibold">Your seller account is suspended by the operator.</p>
          {holds.suspension.reason ? <p className="mt-1">Reason: {holds.suspension.reason}</p> : null}
          <p className="mt-1">
            Your listings are hidden from the store, the catalog API and agents, and you cannot publish. Licenses you sold keep working. Contact the
            operator to have your account reinstated.
          </p>
        </div>
      ) : null}
      {removed.length ? (
        <div role="status" id="listings-removed" className="rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-950">
          <p className="font-semibold">{removed.length === 1 ? "A listing was" : "Listings were"} removed by the operator</p>
          <ul className="mt-1 space-y-1">
            {removed.map((p) => (
              <li key={p.id}>
                {productId ? (
                  <span className="font-medium">{p.name}</span>
                ) : (
                  <Link href={`/dashboard/products/${encodeURIComponent(p.id)}`} className={`rounded-sm font-medium underline ${focusRing}`}>
                    {p.name}
                  </Link>
                )}
                : {p.reason ?? "no reason given"}
              </li>
            ))}
          </ul>
          <p className="mt-1">
            A removed listing cannot be relisted; contact the operator if you think this is a mistake. Licenses already sold keep working.
          </p>
        </div>
      ) : null}
    </div>
  );
}
