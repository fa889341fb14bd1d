"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";
import { badArguments, formOf, idempotencyKeyOf, idOf, runOperation } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { releaseAnchor } from "@/components/dashboard/release-anchor";
import { appErrorMessage, formValues, problemRefusal, refused, type FormState } from "@/components/dashboard/form-state";
import { versionWithoutV } from "@/components/dashboard/version-offer";

/**
 * The Releases page's actions, each one of the release operations (the REST endpoints' own), which scope every change
 * to the signed-in seller's own product (another seller's is the 404 page). A refusal comes back as the form's message
 * in the problem's own words, or under the field it names; a success redirects with a notice.
 */

const CONTROL = "Remove the control characters (invisible characters such as NUL or escape).";

/** Browsers send a textarea's line breaks as CRLF; notes are stored with LF, as the API takes them. */
const lf = (text: string) => text.replace(/\r\n?/g, "\n");

const releasesPath = (productId: string) => `/dashboard/products/${encodeURIComponent(productId)}/releases`;

function revalidateReleases(productId: string) {
  revalidatePath(releasesPath(productId));
  // The store's product page shows the latest version and the changelog; listings show the latest version.
  revalidatePath(`/products/${productId}`);
  revalidatePath("/");
}

/** The form's words for a field problem: an empty version asks for one, a control character says what to remove. */
function word(issue: { field: string; input?: unknown }, message: string): string {
  if (issue.field === "version" && issue.input === "") return "Enter a version such as 1.0.0.";
  return /control characters/.test(message) ? CONTROL : message;
}

/**
 * A refused operation on a release form: another seller's product (or none) is the 404 page; a problem naming one of
 * the form's fields is shown under it (a version that is no semantic version under the version);
 * anything else (a release or file gone meanwhile, a rule of publishing) on top.
 */
function refusal(problem: AppError, values: FormState["values"], fields: readonly string[], sent: Record<string, unknown> = {}): FormState {
  if (problem.status !== 404 || problem.code === "product_not_found") sellerRefusal(problem);
  if (fields.includes("version") && /version/.test(problem.code) && !problem.extra.errors?.length)
    return refused(values, { version: [appErrorMessage(problem)] });
  return problemRefusal(problem, values, { sent, fields, word });
}

function productIdOf(raw: unknown): string {
  return idOf(raw, 64);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function createReleaseAction(rawProductId: unknown, _prev: FormState, form: unknown): Promise<FormState> {
  const productId = productIdOf(rawProductId);
  const fd = formOf(form);
  const values = formValues(fd, ["version", "channel", "notes"]);
  values.notes = lf(String(values.notes));
  const body = { version: String(values.version).trim(), channel: values.channel || undefined, notes: values.notes };
  const outcome = await runOperation<{ version: string }>("createRelease", {
    params: { id: productId },
    body,
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) {
    // "v1.0.0" is refused with the reason; the field is given back as "1.0.0", ready to send.
    const offered = outcome.problem.code === "invalid_version" ? versionWithoutV(body.version) : null;
    return refusal(outcome.problem, offered ? { ...values, version: offered } : values, ["version", "channel", "notes"], body);
  }
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=release-created#${releaseAnchor(outcome.output.version)}`);
}

export async function updateReleaseAction(rawProductId: unknown, rawVersion: unknown, _prev: FormState, form: unknown): Promise<FormState> {
  const productId = productIdOf(rawProductId);
  const version = idOf(rawVersion);
  const values = formValues(formOf(form), ["notes", "channel"]);
  values.notes = lf(String(values.notes));
  // A published release's form has no channel field (only drafts may change it).
  const body = { notes: values.notes, channel: values.channel || undefined };
  const outcome = await runOperation("updateRelease", { params: { id: productId, version }, body });
  if (!outcome.ok) return refusal(outcome.problem, values, ["notes", "channel"], body);
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=release-saved#${releaseAnchor(version)}`);
}

const STEPS = {
  publish: { operation: "publishRelease", notice: "release-published" },
  yank: { operation: "yankRelease", notice: "release-yanked" },
  delete: { operation: "deleteRelease", notice: "release-deleted" },
} as const;

/** Publish, yank or delete a release (the form holds only its button). */
export async function releaseStepAction(rawProductId: unknown, rawVersion: unknown, rawStep: unknown, _prev: FormState): Promise<FormState> {
  const productId = productIdOf(rawProductId);
  const version = idOf(rawVersion);
  if (rawStep !== "publish" && rawStep !== "yank" && rawStep !== "delete") badArguments("Unknown release action.");
  const step = STEPS[rawStep];
  const outcome = await runOperation(step.operation, { params: { id: productId, version } });
  if (!outcome.ok) return refusal(outcome.problem, {}, []);
  revalidateReleases(productId);
  const anchor = step === STEPS.delete ? "" : `#${releaseAnchor(version)}`;
  redirect(`${releasesPath(productId)}?notice=${step.notice}${anchor}`);
}

export async function deleteArtifactAction(rawProductId: unknown, rawVersion: unknown, rawArtifactId: unknown, _prev: FormState): Promise<FormState> {
  const productId = productIdOf(rawProductId);
  const version = idOf(rawVersion);
  const outcome = await runOperation("deleteArtifact", { params: { id: productId, version, artifact_id: idOf(rawArtifactId) } });
  if (!outcome.ok) return refusal(outcome.problem, {}, []);
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=artifact-deleted#${releaseAnchor(version)}`);
}
