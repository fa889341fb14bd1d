import type { Metadata } from "next";
import Link from "next/link";
import { ProductForm } from "@/components/dashboard/product-form";
import { PageHeader } from "@/components/dashboard/page-header";
import { card, focusRing, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../../_lib/seller";
import { createProductAction } from "../actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "New product", robots: { index: false } };

export default async function NewProductPage() {
  await pageSeller();
  return (
    <>
      <PageHeader
        eyebrow={
          <Link href="/dashboard/products" className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>Products
          </Link>
        }
        title="New product"
        description="Everything here is what the store page, the catalog API and AI agents show. You can change all of it later."
      />
      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <ProductForm action={createProductAction} submitLabel="Create product" idempotencyKey={crypto.randomUUID()} />
        <aside aria-labelledby="how-heading" className="lg:sticky lg:top-6 lg:self-start">
          <div className={`${card} p-5`}>
            <h2 id="how-heading" className="text-base font-semibold text-slate-900">
              How licensing works
            </h2>
            <ol className="mt-3 list-decimal space-y-2 pl-5 text-sm leading-6 text-slate-700">
              <li>A buyer pays; a key is issued and e-mailed at once.</li>
              <li>
                Your app calls <code className="rounded bg-slate-100 px-1 text-[0.8125rem]">/activate</code> with the key, a machine fingerprint and
                your plugin ID, then <code className="rounded bg-slate-100 px-1 text-[0.8125rem]">/validate</code> at launch.
              </li>
              <li>Buyers release old machines themselves; you can too, from Licenses.</li>
            </ol>
            <p className="mt-4 text-sm text-slate-700">
              Need the client code? The{" "}
              <Link href="/agents" className={textLink}>
                developer tools
              </Link>{" "}
              write it for C, C++, C#, Rust, Python, JUCE, Electron and Tauri.
            </p>
          </div>
        </aside>
      </div>
    </>
  );
}
