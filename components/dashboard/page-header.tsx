import type { ReactNode } from "react";

/** The title block of a dashboard page, with its main actions on the right (below on phones). */
export function PageHeader({
  title,
  description,
  actions,
  eyebrow,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  eyebrow?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
      <div className="min-w-0">
        {eyebrow ? <div className="mb-2 text-sm text-slate-600">{eyebrow}</div> : null}
        <h1 className="text-2xl font-semibold tracking-tight text-balance wrap-anywhere text-slate-900 sm:text-3xl">{title}</h1>
        {description ? <div className="mt-2 max-w-3xl text-base text-pretty wrap-anywhere text-slate-600">{description}</div> : null}
      </div>
      {actions ? <div className="flex shrink-0 flex-wrap gap-2">{actions}</div> : null}
    </div>
  );
}

/** A titled section of a dashboard page. */
export function Section({
  id,
  title,
  description,
  actions,
  children,
  className = "",
}: {
  id: string;
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section aria-labelledby={id} className={className}>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end sm:justify-between">
        {/* min-w-0 and wrap-anywhere: a long search term in the description wraps instead of widening the page. */}
        <div className="min-w-0">
          <h2 id={id} className="text-lg font-semibold text-slate-900">
            {title}
          </h2>
          {description ? <p className="mt-1 text-sm wrap-anywhere text-slate-600">{description}</p> : null}
        </div>
        {actions ? <div className="flex flex-wrap gap-2">{actions}</div> : null}
      </div>
      <div className="mt-4">{children}</div>
    </section>
  );
}
