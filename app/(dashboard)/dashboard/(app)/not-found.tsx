import Link from "next/link";
import { buttonPrimary } from "@/components/ui/styles";

export default function DashboardNotFound() {
  return (
    <div className="flex flex-col items-center py-16 text-center">
      <p className="rounded-full bg-indigo-50 px-3 py-1 text-sm font-semibold text-indigo-800 ring-1 ring-indigo-200 ring-inset">404 · Not found</p>
      <h1 className="mt-5 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">Nothing of yours here</h1>
      <p className="mt-3 max-w-md text-base text-slate-600">This product or license does not exist, or it belongs to another seller.</p>
      <Link href="/dashboard" className={`${buttonPrimary} mt-8`}>
        <span aria-hidden="true">←</span> Back to the dashboard
      </Link>
    </div>
  );
}
