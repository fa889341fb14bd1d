import Link from "next/link";
import { buttonPrimary, container } from "@/components/ui/styles";

/** The body of a 404 page. */
export function NotFoundPanel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className={`${container} flex flex-col items-center py-20 text-center sm:py-28`}>
      <p className="rounded-full bg-indigo-50 px-3 py-1 text-sm font-semibold text-indigo-800 ring-1 ring-indigo-200 ring-inset">404 · Not found</p>
      <h1 className="mt-5 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">{title}</h1>
      <div className="mt-4 max-w-lg text-base text-pretty text-slate-600">{children}</div>
      <Link href="/" className={`${buttonPrimary} mt-8`}>
        <span aria-hidden="true">←</span> Back to browse
      </Link>
    </div>
  );
}
