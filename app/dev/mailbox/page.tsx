import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { canReadDevMailbox, listDevMailbox } from "@/lib/email/dev-mailbox";
import { mailboxQuerySchema } from "@/lib/email/schemas";
import { plural } from "@/components/store/labels";
import { Badge } from "@/components/ui/badge";
import { card, container, textLink } from "@/components/ui/styles";
import { formatTime, StatusBadge } from "@/components/email/mailbox";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Development mailbox", robots: { index: false, follow: false } };

const SHOWN = 100;

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function DevMailboxPage({ searchParams }: Props) {
  if (!canReadDevMailbox(await headers())) notFound();
  const raw = (await searchParams).to;
  const filter = mailboxQuerySchema.shape.to.safeParse(Array.isArray(raw) ? raw[0] : raw);
  const to = filter.success ? filter.data : undefined;
  const { messages } = await listDevMailbox({ to, limit: SHOWN });

  return (
    <div className={`${container} py-10 sm:py-14`}>
      <p className="text-sm font-medium text-indigo-700">Development</p>
      <h1 className="mt-2 text-3xl font-semibold tracking-tight text-balance text-slate-900 sm:text-4xl">Mailbox</h1>
      <div className="mt-3 max-w-3xl space-y-2 text-base text-pretty text-slate-600">
        <p>
          This is the development mailbox. No mail provider is configured, so nothing leaves this machine: every e-mail the service sends — license
          keys, sign-in links — is delivered here instead, and shown for an hour.
        </p>
        <p className="text-sm">
          To send real e-mail, set <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">RESEND_API_KEY</code> and{" "}
          <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">MAIL_FROM</code> (an address on a domain verified
          with Resend) and restart; this page then disappears. It is shown only to this machine, or to everyone with{" "}
          <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] text-slate-800">DEV_MAILBOX=public</code>. The same messages as
          JSON: {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a JSON endpoint, not a page to navigate to */}
          <a href="/api/dev/mailbox" className={textLink}>
            /api/dev/mailbox
          </a>
          .
        </p>
      </div>

      <section aria-labelledby="messages-heading" className="mt-8">
        <div className="flex flex-wrap items-baseline justify-between gap-3">
          <h2 id="messages-heading" className="text-lg font-semibold text-slate-900">
            {to
              ? `${plural(messages.length, "message")} to ${to}`
              : messages.length >= SHOWN
                ? `Newest ${SHOWN} messages`
                : plural(messages.length, "message")}
          </h2>
          {to ? (
            <Link href="/dev/mailbox" className={`${textLink} text-sm`}>
              Show all recipients
            </Link>
          ) : null}
        </div>

        {messages.length === 0 ? (
          <div className="mt-4 rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center">
            <p className="text-base font-medium text-slate-900">No mail yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Buy something in test mode and the license e-mail shows up here.</p>
          </div>
        ) : (
          <div className={`${card} mt-4 overflow-x-auto`}>
            <table className="w-full min-w-[44rem] text-left text-sm">
              <thead className="border-b border-slate-200 text-xs font-semibold tracking-wide text-slate-500 uppercase">
                <tr>
                  <th scope="col" className="px-4 py-3">
                    Received
                  </th>
                  <th scope="col" className="px-4 py-3">
                    To
                  </th>
                  <th scope="col" className="px-4 py-3">
                    Subject
                  </th>
                  <th scope="col" className="px-4 py-3">
                    Kind
                  </th>
                  <th scope="col" className="px-4 py-3">
                    Status
                  </th>
                  <th scope="col" className="px-4 py-3 text-right">
                    Attempts
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {messages.map((m) => (
                  <tr key={m.id} className="align-top hover:bg-slate-50">
                    <td className="px-4 py-3 whitespace-nowrap text-slate-600">
                      <time dateTime={m.created_at}>{formatTime(m.created_at)}</time>
                    </td>
                    <td className="px-4 py-3 text-slate-700">
                      <Link href={`/dev/mailbox?to=${encodeURIComponent(m.to)}`} className={textLink} title={`Only messages to ${m.to}`}>
                        {m.to}
                      </Link>
                    </td>
                    <td className="px-4 py-3">
                      <Link href={`/dev/mailbox/${encodeURIComponent(m.id)}`} className={`${textLink} text-slate-900`}>
                        {m.subject}
                      </Link>
                    </td>
                    <td className="px-4 py-3">
                      <Badge>{m.kind}</Badge>
                    </td>
                    <td className="px-4 py-3">
                      <StatusBadge status={m.status} />
                    </td>
                    <td className="px-4 py-3 text-right text-slate-600 tabular-nums">{m.attempts}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
