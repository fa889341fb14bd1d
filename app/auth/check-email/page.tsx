import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { readBinding } from "@/lib/auth/link-binding";
import { SIGN_IN_TTL_MINUTES } from "@/lib/auth/sign-in";
import { devMailboxEnabled } from "@/lib/email/dev-mailbox";
import { CheckoutFrame } from "@/components/checkout/checkout-frame";
import { StatusPanel } from "@/components/checkout/status-panel";
import { queryText } from "@/components/licenses/format";
import { buttonPrimary, buttonSecondary, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

type Query = Record<string, string | string[] | undefined>;
type Props = { searchParams: Promise<Query> };

const SIGN_IN_PAGE = { buyer: "/licenses", seller: "/dashboard/sign-in" } as const;

/** What the query asks for: the "link sent" page for a purpose, or the "link invalid" page. Nothing else is read from it. */
function parse(query: Query) {
  const invalid = queryText(query.invalid, 5) === "1";
  const purpose: keyof typeof SIGN_IN_PAGE = queryText(query.purpose, 10) === "seller" ? "seller" : "buyer";
  return { invalid, purpose };
}

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  const { invalid } = parse(await searchParams);
  return invalid
    ? {
        title: "Sign-in link expired",
        description: "This sign-in link has expired or was already used. Ask for a new one.",
        robots: { index: false },
      }
    : {
        title: "Check your e-mail",
        description: `We sent you a sign-in link. It works once and expires in ${SIGN_IN_TTL_MINUTES} minutes.`,
        robots: { index: false },
      };
}

/** Where the sign-in forms of "My licenses" and the dashboard land, and where a spent sign-in link ends up. */
export default async function CheckEmailPage({ searchParams }: Props) {
  const { invalid, purpose } = parse(await searchParams);
  // The address comes from the cookie the sign-in form's answer set in this browser, never from the URL: a crafted
  // link cannot make this page claim we mailed an address of its choosing.
  const { email } = readBinding((await headers()).get("cookie"));
  const devMailbox = devMailboxEnabled();

  if (invalid) {
    return (
      <CheckoutFrame>
        <StatusPanel
          tone="stopped"
          title="This sign-in link has expired or was already used"
          testId="sign-in-invalid"
          actions={
            <>
              <Link href={SIGN_IN_PAGE.buyer} className={buttonPrimary}>
                New link for My licenses
              </Link>
              <Link href={SIGN_IN_PAGE.seller} className={buttonSecondary}>
                New link for the seller dashboard
              </Link>
            </>
          }
        >
          <p>
            Each sign-in link works once and expires {SIGN_IN_TTL_MINUTES} minutes after it was sent. Ask for a new one and use the newest e-mail.
          </p>
        </StatusPanel>
      </CheckoutFrame>
    );
  }

  const back = SIGN_IN_PAGE[purpose];
  return (
    <CheckoutFrame>
      <StatusPanel
        tone="pending"
        title="Check your e-mail"
        testId="check-email"
        footer={
          devMailbox ? (
            <p className="text-sm text-slate-600">
              Running locally?{" "}
              <Link href={email ? `/dev/mailbox?to=${encodeURIComponent(email)}` : "/dev/mailbox"} prefetch={false} className={textLink}>
                Open the development mailbox
              </Link>{" "}
              — with no mail provider configured, sign-in links land there.
            </p>
          ) : undefined
        }
      >
        <p>
          We sent a sign-in link to{" "}
          {email ? (
            <strong data-testid="check-email-address" className="font-semibold wrap-anywhere text-slate-900">
              {email}
            </strong>
          ) : (
            "your address"
          )}
          . It works once and expires in {SIGN_IN_TTL_MINUTES} minutes.
        </p>
        <p className="text-sm text-slate-600">
          Nothing there? Look in the spam folder, or wait a minute. Wrong address?{" "}
          <Link href={back} className={textLink}>
            Go back
          </Link>
          .
        </p>
      </StatusPanel>
    </CheckoutFrame>
  );
}
