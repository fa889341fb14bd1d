import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { currentSeller } from "@/lib/auth/next-session";
import { env } from "@/lib/env";
import { listSellerReleases } from "@/lib/releases/manage";
import { NOTES_MAX_CHARS } from "@/lib/releases/notes";
import { artifactStorage } from "@/lib/releases/quota";
import { FORMAT_LABELS, PLATFORM_LABELS, PLATFORMS, PLUGIN_FORMATS } from "@/lib/releases/platforms";
import type { ReleaseView } from "@/lib/releases/read";
import { ArtifactUpload } from "@/components/dashboard/artifact-upload";
import { buttonDanger, buttonSmall } from "@/components/dashboard/buttons";
import { ActionForm, ChoiceGroup, SubmitButton, TextAreaField, TextField } from "@/components/dashboard/form-fields";
import { Notice } from "@/components/dashboard/notice";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { PageHeader } from "@/components/dashboard/page-header";
import { StorageUse } from "@/components/dashboard/storage-use";
import { releaseAnchor } from "@/components/dashboard/release-anchor";
import { ReleaseStatusBadge } from "@/components/dashboard/status-badge";
import { artifactPlatformLabel, formatLabel } from "@/components/store/release-labels";
import { ReleaseNotes } from "@/components/store/release-changelog";
import { Badge } from "@/components/ui/badge";
import { formatBytes, formatMoment } from "@/lib/format";
import { buttonSecondary, card, focusRing } from "@/components/ui/styles";
import { pageSeller } from "../../../../../_lib/seller";
import { findProduct } from "../../../../../_lib/find-product";
import { createReleaseAction, deleteArtifactAction, releaseStepAction, updateReleaseAction } from "./actions";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const seller = await currentSeller();
  const product = seller?.developer ? await findProduct(seller.developer.id, (await params).id) : null;
  return { title: product ? `Releases of ${product.name}` : "Product not found", robots: { index: false } };
}

const CHANNEL_CHOICES = [
  { value: "stable", label: "Stable", description: "Offered to every license holder entitled to it." },
  { value: "beta", label: "Beta", description: "Only apps that ask for the beta channel are offered it." },
];

const NOTES_HINT = "Markdown: headings, lists, links, code. Raw HTML is shown as text; links open without passing on who sent the visitor.";

function ReleaseCard({
  productId,
  release,
  index,
  maxMb,
  roomBytes,
}: {
  productId: string;
  release: ReleaseView;
  index: number;
  maxMb: number;
  roomBytes: number;
}) {
  const draft = release.status === "draft";
  const prefix = `release-${index}`;
  const heading = `${prefix}-heading`;
  // Changes with what the release holds: its step forms start afresh, so an earlier refusal ("no files yet") does not
  // stay on the page after the upload that answers it.
  const stateKey = `${release.status}-${release.artifacts.map((a) => a.id).join(".")}`;
  return (
    <li id={releaseAnchor(release.version)} className={`${card} scroll-mt-6 p-5 sm:p-6`}>
      <section aria-labelledby={heading} className="space-y-5">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h3 id={heading} className="text-lg font-semibold text-slate-900">
            Version {release.version}
          </h3>
          <ReleaseStatusBadge status={release.status} />
          {release.channel === "beta" ? <Badge tone="accent">Beta channel</Badge> : <Badge>Stable channel</Badge>}
          <p className="text-sm text-slate-600">
            {release.published_at ? <>Published {formatMoment(release.published_at)}</> : "Not published yet"}
            {release.yanked_at ? <>; yanked {formatMoment(release.yanked_at)}</> : null}
          </p>
        </div>

        <div>
          <h4 className="text-sm font-semibold text-slate-900">Files</h4>
          {release.artifacts.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">No files yet. A release needs at least one to be published.</p>
          ) : (
            <ul aria-label={`Files of version ${release.version}`} className="mt-2 divide-y divide-slate-200 rounded-xl border border-slate-200">
              {release.artifacts.map((a) => {
                const label = [artifactPlatformLabel(a.platform), a.format ? formatLabel(a.format) : "Application"].join(" · ");
                return (
                  <li key={a.id} className="flex flex-col gap-2 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
                    <div className="min-w-0">
                      <p className="text-sm font-medium text-slate-900">{label}</p>
                      <p className="mt-0.5 font-mono text-xs break-all text-slate-600">
                        {a.filename} · {formatBytes(a.size)} · sha256:{a.sha256}
                      </p>
                    </div>
                    {draft ? (
                      <ActionForm
                        action={deleteArtifactAction.bind(null, productId, release.version, a.id)}
                        prefix={`${prefix}-artifact-${a.id}`}
                        labels={{}}
                        label={`Delete ${a.filename}`}
                      >
                        <SubmitButton pendingLabel="Deleting…" className={`${buttonSmall} text-red-700 hover:bg-red-50`}>
                          Delete<span className="sr-only"> {a.filename}</span>
                        </SubmitButton>
                      </ActionForm>
                    ) : null}
                  </li>
                );
              })}
            </ul>
          )}
        </div>

        {draft ? (
          <div>
            <h4 className="text-sm font-semibold text-slate-900">Add a file</h4>
            <noscript>
              <p className="mt-2 text-sm text-amber-900">
                Uploading here needs JavaScript. Without it, upload with the API:{" "}
                <code className="font-mono text-xs">
                  PUT /api/v1/products/{productId}/releases/{release.version}/artifacts?platform=…&amp;format=…&amp;filename=…
                </code>
              </p>
            </noscript>
            <div className="mt-2">
              <ArtifactUpload
                productId={productId}
                version={release.version}
                maxMb={maxMb}
                roomBytes={roomBytes}
                platforms={PLATFORMS.map((p) => ({ value: p, label: PLATFORM_LABELS[p] }))}
                formats={PLUGIN_FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] }))}
              />
            </div>
          </div>
        ) : null}

        <details className="group rounded-xl border border-slate-200" open={draft && !release.notes}>
          <summary className={`cursor-pointer rounded-xl px-4 py-3 text-sm font-semibold text-slate-900 ${focusRing}`}>
            Release notes{draft ? " and channel" : ""}
          </summary>
          <div className="space-y-4 border-t border-slate-200 px-4 py-4">
            {release.notes ? (
              <div>
                <p className="text-xs font-medium tracking-wide text-slate-500 uppercase">As buyers see them</p>
                <div className="mt-2">
                  <ReleaseNotes html={release.notes_html} />
                </div>
              </div>
            ) : null}
            <ActionForm
              action={updateReleaseAction.bind(null, productId, release.version)}
              prefix={`${prefix}-edit`}
              labels={{ notes: "Release notes", channel: "Channel" }}
              label={`Edit version ${release.version}`}
              className="space-y-4"
            >
              <TextAreaField
                name="notes"
                label="Release notes"
                defaultValue={release.notes}
                rows={8}
                maxLength={NOTES_MAX_CHARS}
                optional
                hint={NOTES_HINT}
              />
              {draft ? (
                <ChoiceGroup
                  name="channel"
                  legend="Channel"
                  type="radio"
                  columns="sm:grid-cols-2"
                  defaultValue={release.channel}
                  options={CHANNEL_CHOICES}
                />
              ) : null}
              <SubmitButton pendingLabel="Saving…" className={buttonSecondary}>
                Save notes
              </SubmitButton>
            </ActionForm>
          </div>
        </details>

        <div className="space-y-3 border-t border-slate-200 pt-4">
          <p className="text-sm text-slate-600">
            {draft
              ? "Publishing shows the release on the product page and offers it to entitled license holders, their apps and update feeds. Its files cannot change afterwards."
              : release.status === "published"
                ? "Yanking withdraws the release from downloads, update checks and feeds (for a broken build); publish a fixed version to replace it."
                : "Yanked: no longer offered. Publish a new version to replace it."}
          </p>
          <div className="flex flex-wrap items-start gap-3">
            {draft ? (
              <>
                <ActionForm
                  key={`publish-${stateKey}`}
                  action={releaseStepAction.bind(null, productId, release.version, "publish")}
                  prefix={`${prefix}-publish`}
                  labels={{}}
                  label={`Publish version ${release.version}`}
                >
                  <SubmitButton pendingLabel="Publishing…">
                    Publish<span className="sr-only"> version {release.version}</span>
                  </SubmitButton>
                </ActionForm>
                <ActionForm
                  action={releaseStepAction.bind(null, productId, release.version, "delete")}
                  prefix={`${prefix}-delete`}
                  labels={{}}
                  label={`Delete draft ${release.version}`}
                >
                  <SubmitButton pendingLabel="Deleting…" className={buttonSecondary}>
                    Delete draft<span className="sr-only"> {release.version}</span>
                  </SubmitButton>
                </ActionForm>
              </>
            ) : null}
            {release.status === "published" ? (
              <ActionForm
                action={releaseStepAction.bind(null, productId, release.version, "yank")}
                prefix={`${prefix}-yank`}
                labels={{}}
                label={`Yank version ${release.version}`}
              >
                <SubmitButton pendingLabel="Yanking…" className={buttonDanger}>
                  Yank<span className="sr-only"> version {release.version}</span>
                </SubmitButton>
              </ActionForm>
            ) : null}
          </div>
        </div>
      </section>
    </li>
  );
}

export default async function ReleasesPage({ params, searchParams }: Props) {
  const { developer } = await pageSeller();
  const product = await findProduct(developer.id, (await params).id);
  if (!product) notFound();
  const [releases, storage] = await Promise.all([listSellerReleases(developer.id, product.id), artifactStorage(developer.id)]);
  const roomBytes = Math.max(0, storage.quota_bytes - storage.used_bytes);
  const editHref = `/dashboard/products/${encodeURIComponent(product.id)}`;
  const maxMb = env().ARTIFACT_MAX_MB;

  return (
    <>
      <Notice searchParams={await searchParams} />
      <PageHeader
        eyebrow={
          <Link href={editHref} className={`rounded-sm hover:text-slate-900 hover:underline ${focusRing}`}>
            <span aria-hidden="true">← </span>
            {product.name}
          </Link>
        }
        title={`Releases of ${product.name}`}
        description="Versions with their files per platform and their release notes. A draft collects files; publishing offers it to buyers, their apps and update feeds."
        actions={
          product.status === "active" ? (
            <a href={`/products/${encodeURIComponent(product.id)}#changelog`} className={buttonSecondary}>
              View changelog in store
            </a>
          ) : null
        }
      />

      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <section aria-labelledby="releases-heading" className="min-w-0">
          <h2 id="releases-heading" className="text-lg font-semibold text-slate-900">
            Versions
          </h2>
          {releases.length === 0 ? (
            <p className={`${card} mt-4 p-6 text-sm text-slate-600`}>
              No releases yet. Create a draft, upload its files, then publish it. Until then buyers get the product&apos;s download URL.
            </p>
          ) : (
            <ol className="mt-4 space-y-6">
              {releases.map((r, i) => (
                <ReleaseCard key={r.version} productId={product.id} release={r} index={i} maxMb={maxMb} roomBytes={roomBytes} />
              ))}
            </ol>
          )}
        </section>

        <aside aria-labelledby="new-release-heading" className="space-y-6 lg:sticky lg:top-6 lg:self-start">
          <div className={`${card} p-5 sm:p-6`}>
            <h2 id="new-release-heading" className="text-base font-semibold text-slate-900">
              New release
            </h2>
            <ActionForm
              action={createReleaseAction.bind(null, product.id)}
              prefix="new-release"
              labels={{ version: "Version", channel: "Channel", notes: "Release notes" }}
              label="New release"
              className="mt-4 space-y-4"
            >
              <IdempotencyField value={crypto.randomUUID()} />
              <TextField
                name="version"
                label="Version"
                required
                autoComplete="off"
                spellCheck={false}
                placeholder="1.0.0"
                hint="Semantic version: 1.2.0, or 2.0.0-beta.1 for a pre-release. No leading v."
              />
              <ChoiceGroup name="channel" legend="Channel" type="radio" columns="" defaultValue="stable" options={CHANNEL_CHOICES} />
              <TextAreaField name="notes" label="Release notes" rows={6} maxLength={NOTES_MAX_CHARS} optional hint={NOTES_HINT} />
              <SubmitButton pendingLabel="Creating…">Create draft</SubmitButton>
            </ActionForm>
          </div>
          <StorageUse storage={storage} />
        </aside>
      </div>
    </>
  );
}
