import type { Metadata } from "next";
import Link from "next/link";
import { SESSION_DAYS, SIGN_IN_TTL_MINUTES } from "@/lib/auth/sign-in";
import { env } from "@/lib/env";
import { paths } from "@/lib/urls";
import { DocumentPage, DocumentSection } from "@/components/store/document-page";
import { textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Privacy",
  description: "What the marketplace stores about buyers, sellers and machines, for how long, and who else sees it.",
  alternates: { canonical: paths.privacyPage },
};

/** What is stored and why, read from how the service works (and, for the mail provider, how this deployment is set up). */
export default function PrivacyPage() {
  const resend = Boolean(env().RESEND_API_KEY);
  return (
    <DocumentPage
      title="Privacy"
      lead="We store what it takes to sell you a license and keep it working, and nothing for advertising. No page loads anything from another site: no trackers, no analytics, no third-party fonts."
    >
      <DocumentSection id="buyers" title="When you buy">
        <ul>
          <li>
            Your e-mail address: your license key, receipts and sign-in links for My licenses go there. The seller of the product sees it with the
            order.
          </li>
          <li>
            The order: product, price, currency, seats, coupon, tax and any refund. Kept as long as the license exists, because the license depends on
            it.
          </li>
          <li>
            Card details never reach us: you pay on the payment provider&apos;s own page (Stripe), which keeps them under its own privacy policy.
          </li>
        </ul>
      </DocumentSection>

      <DocumentSection id="machines" title="Your machines">
        <ul>
          <li>
            A machine fingerprint: a SHA-256 hash your app computes from the computer&apos;s hardware and system identifiers. We never receive the
            identifiers themselves.
          </li>
          <li>If the app sends them: a machine name, the platform and the app&apos;s version, so you can tell your machines apart on My licenses.</li>
          <li>When each machine was activated and last checked its license. Released machines are kept in the license&apos;s history.</li>
        </ul>
      </DocumentSection>

      <DocumentSection id="addresses" title="Network addresses">
        <p>
          Your IP address is used to limit how often licenses can be checked, activated, bought or tried from one place (against key guessing and
          abuse). The counters live in memory and, when several servers share the work, in a table that drops each entry when its window ends: within
          a minute, or an hour for trials. Addresses are not stored with your orders or licenses.
        </p>
      </DocumentSection>

      <DocumentSection id="cookies" title="Cookies">
        <ul>
          <li>
            Signing in sets one cookie: {SESSION_DAYS.buyer} days for My licenses, {SESSION_DAYS.seller} days for the seller dashboard. Sign-in links
            work once and for {SIGN_IN_TTL_MINUTES} minutes; we store only a hash of them.
          </li>
          <li>
            When the Buy form sends you back with a problem, a cookie for that product page holds the e-mail address you typed for one minute, so it
            is not put in the address bar.
          </li>
          <li>No other cookies: none for tracking or advertising.</li>
        </ul>
      </DocumentSection>

      <DocumentSection id="email" title="E-mail">
        <p>
          {resend
            ? "E-mails are delivered through Resend, which processes the address and the message to deliver it."
            : "This deployment sends no e-mail through an outside provider: messages stay in its own mailbox."}{" "}
          A copy of each message we send is kept with the records it belongs to.
        </p>
      </DocumentSection>

      <DocumentSection id="sellers" title="Sellers">
        <p>
          Your sign-in address, your public profile (name, website, about, refund policy, support contact) and your sales. Payouts go through Stripe
          Connect: your bank and identity details are given to Stripe, not to us.
        </p>
      </DocumentSection>

      <DocumentSection id="requests" title="Questions and requests">
        <p>
          To see, correct or delete what we hold about you,{" "}
          <Link href={paths.contactPage} className={textLink}>
            contact the operator
          </Link>
          . Licenses still in use need their order, so deleting one ends the license.
        </p>
      </DocumentSection>
    </DocumentPage>
  );
}
