import type { ReactNode } from "react";
import { container, textLink } from "@/components/ui/styles";

/**
 * A page of plain prose for people (terms, refunds, privacy, contact, a receipt): one column at reading width, a
 * lead paragraph, and, where a machine-readable twin exists, a link to it.
 */
export function DocumentPage({
  title,
  lead,
  machine,
  children,
}: {
  title: string;
  lead: ReactNode;
  /** The JSON document with the same facts, for programs. */
  machine?: { href: string; label: string };
  children: ReactNode;
}) {
  return (
    <div className={`${container} py-10 sm:py-14`}>
      <article className="max-w-3xl min-w-0">
        <h1 className="text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">{title}</h1>
        <div className="mt-3 text-lg text-pretty text-slate-600">{lead}</div>
        <div className="mt-10 space-y-10">{children}</div>
        {machine ? (
          <p className="mt-12 border-t border-slate-200 pt-6 text-sm text-slate-600">
            For programs:{" "}
            <a href={machine.href} className={textLink}>
              {machine.label}
            </a>
          </p>
        ) : null}
      </article>
    </div>
  );
}

/** A titled section of a document page; `id` is its anchor (e.g. /terms#fees). */
export function DocumentSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section id={id} aria-labelledby={`${id}-heading`} className="scroll-mt-6">
      <h2 id={`${id}-heading`} className="text-xl font-semibold text-slate-900">
        {title}
      </h2>
      <div className="mt-3 space-y-3 text-base leading-7 break-words text-slate-700 [&_li]:pl-1 [&_ul]:list-disc [&_ul]:space-y-1.5 [&_ul]:pl-5">
        {children}
      </div>
    </section>
  );
}
