"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { multiLineText } from "@/lib/http/input";
import {
  createRelease,
  createReleaseInputSchema,
  deleteArtifact,
  deleteRelease,
  publishRelease,
  updateRelease,
  updateReleaseInputSchema,
  yankRelease,
} from "@/lib/releases/manage";
import { releaseAnchor } from "@/components/dashboard/release-anchor";
import { appErrorMessage, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

/**
 * The Releases page's actions. Each calls lib/releases/manage.ts, which scopes every change to the signed-in seller's
 * own product (another seller's is "not found") and applies the same rules as the REST endpoints; a refusal comes
 * back as the form's message with the problem's own words, a success redirects with a notice.
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

/** A refusal from lib/: a named field (the problem's `errors`) gets it under the field, anything else on top. */
function refusedBy(error: unknown, values: FormState["values"], fields: readonly string[]): FormState {
  if (isNotFound(error) && (error as AppError).code === "product_not_found") notFound();
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  const field = error.extra.errors?.[0]?.name;
  if (field && fields.includes(field)) return refused(values, { [field]: [appErrorMessage(error)] });
  if (fields.includes("version") && /version/.test(error.code)) return refused(values, { version: [appErrorMessage(error)] });
  return refused(values, {}, appErrorMessage(error));
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function createReleaseAction(rawProductId: unknown, _prev: FormState, fd: FormData): Promise<FormState> {
  const productId = String(rawProductId);
  const { developer } = await requireSeller();
  const values = formValues(fd, ["version", "channel", "notes"]);
  values.notes = lf(String(values.notes));
  const version = String(values.version).trim();
  if (!version) return refused(values, { version: ["Enter a version such as 1.0.0."] });
  const parsed = createReleaseInputSchema.safeParse({ version, channel: values.channel || undefined, notes: values.notes }, { reportInput: true });
  if (!parsed.success) return refused(values, zodFieldErrors(parsed.error));
  if (!multiLineText(values.notes)) return refused(values, { notes: [CONTROL] });
  let created: string;
  try {
    created = (await createRelease(developer.id, productId, parsed.data)).version;
  } catch (error) {
    return refusedBy(error, values, ["version", "channel", "notes"]);
  }
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=release-created#${releaseAnchor(created)}`);
}

export async function updateReleaseAction(rawProductId: unknown, rawVersion: unknown, _prev: FormState, fd: FormData): Promise<FormState> {
  const productId = String(rawProductId);
  const version = String(rawVersion);
  const { developer } = await requireSeller();
  const values = formValues(fd, ["notes", "channel"]);
  values.notes = lf(String(values.notes));
  // A published release's form has no channel field (only drafts may change it).
  const parsed = updateReleaseInputSchema.safeParse({ notes: values.notes, channel: values.channel || undefined }, { reportInput: true });
  if (!parsed.success) return refused(values, zodFieldErrors(parsed.error));
  if (!multiLineText(values.notes)) return refused(values, { notes: [CONTROL] });
  try {
    await updateRelease(developer.id, productId, version, parsed.data);
  } catch (error) {
    return refusedBy(error, values, ["notes", "channel"]);
  }
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=release-saved#${releaseAnchor(version)}`);
}

const STEPS = {
  publish: { run: publishRelease, notice: "release-published" },
  yank: { run: yankRelease, notice: "release-yanked" },
  delete: { run: deleteRelease, notice: "release-deleted" },
} as const;

/** Publish, yank or delete a release (the form holds only its button). */
export async function releaseStepAction(rawProductId: unknown, rawVersion: unknown, rawStep: unknown, _prev: FormState): Promise<FormState> {
  const productId = String(rawProductId);
  const version = String(rawVersion);
  const step = STEPS[String(rawStep) as keyof typeof STEPS] as (typeof STEPS)[keyof typeof STEPS] | undefined;
  if (!step) throw new AppError("invalid_step", 400, "Unknown release action.");
  const { developer } = await requireSeller();
  try {
    await step.run(developer.id, productId, version);
  } catch (error) {
    return refusedBy(error, {}, []);
  }
  revalidateReleases(productId);
  const anchor = step === STEPS.delete ? "" : `#${releaseAnchor(version)}`;
  redirect(`${releasesPath(productId)}?notice=${step.notice}${anchor}`);
}

export async function deleteArtifactAction(rawProductId: unknown, rawVersion: unknown, rawArtifactId: unknown, _prev: FormState): Promise<FormState> {
  const productId = String(rawProductId);
  const version = String(rawVersion);
  const { developer } = await requireSeller();
  try {
    await deleteArtifact(developer.id, productId, version, String(rawArtifactId));
  } catch (error) {
    return refusedBy(error, {}, []);
  }
  revalidateReleases(productId);
  redirect(`${releasesPath(productId)}?notice=artifact-deleted#${releaseAnchor(version)}`);
}
