import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { env } from "@/lib/env";
import { canReadDevMailbox, getDevMailboxMessage } from "@/lib/email/dev-mailbox";
import { formatTime, StatusBadge } from "@/components/email/mailbox";
import { Badge } from "@/components/ui/badge";
import { card, container, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Development mailbox", robots: { index: false, follow: false } };

type Props = { params: Promise<{ id: string }> };

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-1 px-5 py-3 sm:grid-cols-[9rem_1fr] sm:gap-4">
      <dt className="text-sm font-medium text-slate-500">{label}</dt>
      <dd className="text-sm break-words text-slate-900">{children}</dd>
    </div>
  );
}

export default async function DevMailboxMessagePage({ params }: Props) {
  if (!canReadDevMailbox(await headers())) notFound();
  const message = await getDevMailboxMessage((await params).id);
  if (!message) notFound();

  return (
    <div className={`${container} py-10 sm:py-14`}>
      <p className="text-sm font-medium text-indigo-700">
        <Link href="/dev/mailbox" className={textLink}>
          <span aria-hidden="true">← </span>Development mailbox
        </Link>
      </p>
      <h1 className="mt-3 text-2xl font-semibold tracking-tight text-balance break-words text-slate-900 sm:text-3xl">{message.subject}</h1>

      <dl className={`${card} mt-6 divide-y divide-slate-100`}>
        <Field label="From">{env().MAIL_FROM}</Field>
        <Field label="To">
          <Link href={`/dev/mailbox?to=${encodeURIComponent(message.to)}`} className={textLink}>
            {message.to}
          </Link>
        </Field>
        <Field label="Subject">{message.subject}</Field>
        <Field label="Kind">
          <Badge>{message.kind}</Badge>
        </Field>
        <Field label="Status">
          <span className="inline-flex flex-wrap items-center gap-2">
            <StatusBadge status={message.status} />
            <span className="text-slate-600">
              {message.attempts === 0 ? "no failed attempts" : `${message.attempts} failed ${message.attempts === 1 ? "attempt" : "attempts"}`}
              {message.status === "pending" ? ` · next attempt ${formatTime(message.nextAttemptAt)}` : ""}
            </span>
          </span>
        </Field>
        <Field label="Queued">
          <time dateTime={message.createdAt.toISOString()}>{formatTime(message.createdAt)}</time>
        </Field>
        {message.sentAt ? (
          <Field label="Delivered">
            <time dateTime={message.sentAt.toISOString()}>{formatTime(message.sentAt)}</time>
          </Field>
        ) : null}
        {message.providerMessageId ? (
          <Field label="Message id">
            <code className="font-mono text-xs">{message.providerMessageId}</code>
          </Field>
        ) : null}
        {message.dedupeKey ? (
          <Field label="Dedupe key">
            <code className="font-mono text-xs">{message.dedupeKey}</code>
          </Field>
        ) : null}
        {message.lastError ? (
          <Field label="Last error">
            <span className="text-red-700">{message.lastError}</span>
          </Field>
        ) : null}
      </dl>

      <section aria-labelledby="html-heading" className="mt-10">
        <h2 id="html-heading" className="text-lg font-semibold text-slate-900">
          HTML
        </h2>
        <p className="mt-1 text-sm text-slate-600">As a mail client shows it: no scripts, no forms, links open nothing here.</p>
        {/* sandbox="" : the message's HTML can run nothing and reach neither this page nor its cookies. */}
        <iframe
          sandbox=""
          srcDoc={message.html}
          title={`HTML part of “${message.subject}”`}
          className="mt-4 h-[66rem] w-full rounded-2xl border border-slate-200 bg-white shadow-sm"
        />
      </section>

      <section aria-labelledby="text-heading" className="mt-10">
        <h2 id="text-heading" className="text-lg font-semibold text-slate-900">
          Plain text
        </h2>
        <pre className={`${card} mt-4 overflow-x-auto p-5 font-mono text-sm leading-6 whitespace-pre-wrap break-words text-slate-800`}>
          {message.text}
        </pre>
      </section>
    </div>
  );
}
