import type { Metadata } from "next";
import { redirect } from "next/navigation";
import Link from "next/link";
import { currentSeller } from "@/lib/auth/next-session";
import { isAdminEmail } from "@/lib/auth/operators";
import { ProfileForm } from "@/components/dashboard/profile-form";
import { buttonSecondary, card, container, textLink } from "@/components/ui/styles";
import { createProfileAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Create your developer profile", robots: { index: false } };

export default async function WelcomePage() {
  const seller = await currentSeller();
  if (!seller) redirect("/dashboard/sign-in");
  if (seller.developer) redirect("/dashboard");

  return (
    <div className={`${container} py-10 sm:py-16`}>
      <div className="mx-auto max-w-xl">
        <p className="text-sm font-semibold text-indigo-700">Your developer profile</p>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance text-slate-900">Welcome. Who is selling?</h1>
        <p className="mt-3 text-base text-slate-600">
          You are signed in as <span className="font-medium wrap-anywhere text-slate-900">{seller.email}</span>. Tell buyers who makes the software.
          Before you list a product, buyers also need your refund policy and a way to reach you: add them now or later.
        </p>
        {isAdminEmail(seller.email) ? (
          <p className="mt-4 text-base text-slate-600">
            This address is the operator&rsquo;s: the{" "}
            <Link href="/admin" prefetch={false} className={textLink}>
              Operator console
            </Link>{" "}
            needs no developer profile.
          </p>
        ) : null}
        <div className={`${card} mt-8 p-6 sm:p-8`}>
          <h2 className="sr-only">Developer profile</h2>
          <ProfileForm action={createProfileAction} submitLabel="Create profile" />
        </div>
        <form method="post" action="/auth/sign-out" className="mt-6 flex flex-wrap items-center gap-3 text-sm text-slate-600">
          <input type="hidden" name="kind" value="seller" />
          <span>Not your address?</span>
          <button type="submit" className={`${buttonSecondary} py-1.5`}>
            Sign out
          </button>
        </form>
      </div>
    </div>
  );
}
