import Link from "next/link";
import { card, container, textLink } from "@/components/ui/styles";
import { linkRefusal } from "./link-messages";

/** A link that cannot sell (unknown, off, expired, used up, its product or coupon gone): said plainly, never a crash. */
export function LinkRefused({ code }: { code: string }) {
  const words = linkRefusal(code) ?? {
    heading: "This checkout link cannot be opened right now",
    body: "Please try again in a moment.",
  };
  return (
    <div className={`${container} py-16`}>
      <div className={`${card} mx-auto max-w-lg p-8 text-center`} role="status" id="checkout-link-refused" data-code={code}>
        <h1 className="text-xl font-semibold text-slate-900">{words.heading}</h1>
        <p className="mt-3 text-sm leading-6 text-slate-700">{words.body}</p>
        <p className="mt-6">
          <Link href="/" className={textLink}>
            Browse the store
          </Link>
        </p>
      </div>
    </div>
  );
}
