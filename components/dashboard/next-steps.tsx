import Link from "next/link";
import { card, focusRing } from "@/components/ui/styles";

export interface NextStep {
  id: string;
  title: string;
  text: string;
  href: string;
  done: boolean;
}

/**
 * A new seller's way to the first sale, in order; each step says whether it is done, so the list is a real
 * checklist rather than a counter that runs ahead of the seller.
 */
export function NextSteps({ steps }: { steps: readonly NextStep[] }) {
  const left = steps.filter((s) => !s.done).length;
  return (
    <section id="next-steps" aria-labelledby="next-steps-heading" className={`${card} mt-6 p-5 sm:p-6`}>
      <h2 id="next-steps-heading" className="text-lg font-semibold text-slate-900">
        Your next steps
      </h2>
      <p className="mt-1 text-sm text-slate-600">{left === 0 ? "All done: you are ready to sell." : `${left} of ${steps.length} left.`}</p>
      <ol className="mt-4 space-y-2">
        {steps.map((s, i) => (
          <li key={s.id} id={`step-${s.id}`} data-done={s.done ? "true" : "false"}>
            <Link
              href={s.href}
              className={`flex items-start gap-3 rounded-xl border border-slate-200 p-3 hover:border-indigo-300 hover:bg-indigo-50/50 ${focusRing}`}
            >
              <span
                aria-hidden="true"
                className={`flex size-6 shrink-0 items-center justify-center rounded-full text-xs font-semibold ${
                  s.done ? "bg-emerald-600 text-white" : "border border-slate-400 text-slate-700"
                }`}
              >
                {s.done ? "✓" : i + 1}
              </span>
              <span className="min-w-0">
                <span className="block text-sm font-semibold text-slate-900">
                  {s.title}
                  <span className="ml-2 font-normal text-slate-600">{s.done ? "(done)" : "(to do)"}</span>
                </span>
                <span className="mt-0.5 block text-sm text-slate-600">{s.text}</span>
              </span>
            </Link>
          </li>
        ))}
      </ol>
    </section>
  );
}
