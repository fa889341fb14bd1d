import type { Metadata } from "next";
import { listSellerTokens, MAX_TOKENS_PER_SELLER, SCOPE_DESCRIPTIONS, SELLER_SCOPES, type TokenView } from "@/lib/seller-api/tokens";
import { ApiTokenForm } from "@/components/dashboard/api-token-form";
import { ApiTokenRevoke } from "@/components/dashboard/api-token-revoke";
import { formatDay, formatMoment, param } from "@/components/dashboard/format";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, th } from "@/components/dashboard/table";
import { Badge } from "@/components/ui/badge";
import { buttonSecondary, card, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { createTokenAction, revokeTokenAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, string> = {
  revoked: "Token revoked. Anything still using it is refused from its next call.",
};

const SCOPE_LABELS: Record<string, string> = {
  read: "Read",
  products: "Products and coupons",
  releases: "Releases",
  licenses: "Licenses",
  orders: "Orders and refunds",
  webhooks: "Webhooks",
};

const STATUS: Record<TokenView["status"], { label: string; tone: "success" | "neutral" | "accent" }> = {
  active: { label: "Active", tone: "success" },
  expired: { label: "Expired", tone: "accent" },
  revoked: { label: "Revoked", tone: "neutral" },
};

export default async function ApiTokensPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const tokens = await listSellerTokens(developer.id);
  const done = DONE[param(query.done)];

  return (
    <>
      <Notice searchParams={query} />
      {done ? (
        <div role="status" id="tokens-notice" className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
          {done}
        </div>
      ) : null}
      <PageHeader
        title="API tokens"
        description={
          <>
            Tokens let your CI, scripts and AI agent act for you without this dashboard: send one as{" "}
            <code className="font-mono text-sm">Authorization: Bearer ilmsk_…</code> to the seller API under /api/v1 (every operation is in{" "}
            <a href="/openapi.json" className={textLink}>
              /openapi.json
            </a>
            ) or to MCP. Each token has its own scopes and rate limit; revoke one the moment it may have leaked.
          </>
        }
        actions={
          <a href="#new-token" className={buttonSecondary}>
            New token
          </a>
        }
      />

      <Section
        id="tokens"
        title="Your tokens"
        description={`${tokens.length} ${tokens.length === 1 ? "token" : "tokens"}, newest first. Tokens are shown once, when created; here only their first characters.`}
        className="mt-8"
      >
        {tokens.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No API tokens yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              Create one below for each pipeline or agent, with only the scopes it needs.
            </p>
          </div>
        ) : (
          <ScrollTable label="API tokens" minWidth="sm:min-w-[64rem]">
            <caption className="sr-only">API tokens with their scopes, creation, last use, expiry and status</caption>
            <thead>
              <tr>
                {["Name", "Scopes", "Created", "Last used", "Expires", "Status"].map((h) => (
                  <th key={h} scope="col" className={th}>
                    {h}
                  </th>
                ))}
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((t) => {
                const s = STATUS[t.status];
                return (
                  <tr key={t.id}>
                    <td data-label="Name" className={td}>
                      <span className="font-medium text-slate-900">{t.name}</span>
                      <code className="block font-mono text-xs text-slate-600">{t.prefix}…</code>
                    </td>
                    <td data-label="Scopes" className={td}>
                      <ul className="flex flex-wrap gap-1">
                        {t.scopes.map((scope) => (
                          <li key={scope}>
                            <Badge tone="accent">{SCOPE_LABELS[scope] ?? scope}</Badge>
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td data-label="Created" className={td}>
                      <time dateTime={t.created_at}>{formatDay(t.created_at)}</time>
                      <span className="block text-xs text-slate-600">by {t.created_by}</span>
                    </td>
                    <td data-label="Last used" className={td}>
                      {t.last_used_at ? (
                        <>
                          <time dateTime={t.last_used_at}>{formatMoment(t.last_used_at)}</time>
                          {t.last_used_from ? <span className="block text-xs text-slate-600">from {t.last_used_from}</span> : null}
                        </>
                      ) : (
                        "Never"
                      )}
                    </td>
                    <td data-label="Expires" className={td}>
                      {t.expires_at ? <time dateTime={t.expires_at}>{formatDay(t.expires_at)}</time> : "Never"}
                    </td>
                    <td data-label="Status" className={td}>
                      <Badge tone={s.tone}>{s.label}</Badge>
                      {t.revoked_at ? (
                        <span className="block text-xs text-slate-600">
                          <time dateTime={t.revoked_at}>{formatDay(t.revoked_at)}</time>
                        </span>
                      ) : null}
                    </td>
                    <td className={td}>
                      {t.status === "revoked" ? null : <ApiTokenRevoke action={revokeTokenAction.bind(null, t.id)} name={t.name} />}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </ScrollTable>
        )}
      </Section>

      <Section
        id="new-token"
        title="New token"
        description={`One per pipeline or agent, so each can be revoked alone. Up to ${MAX_TOKENS_PER_SELLER} tokens that are not revoked (expired ones count until you revoke them).`}
        className="mt-12"
      >
        <div className={`${card} p-6`}>
          <ApiTokenForm
            action={createTokenAction}
            idempotencyKey={crypto.randomUUID()}
            scopes={SELLER_SCOPES.map((s) => ({ value: s, label: SCOPE_LABELS[s] ?? s, description: SCOPE_DESCRIPTIONS[s] }))}
          />
        </div>
      </Section>
    </>
  );
}
