import type { AppError } from "@/lib/http/errors";
import { parseMoney } from "@/lib/money/parse-money";
import { formatPrice, PRICING, SUPPORTED_CURRENCIES } from "@/lib/pricing";
import { addError, FILES_KEPT_FIELD, FILES_STORED_VALUE, formText, formValues, problemFieldErrors, refused, type FormState } from "./form-state";
import { MAX_SCREENSHOTS, PRODUCT_TEXT_FIELDS } from "./product-fields";

/**
 * The product form (new and edit pages) as the product operations' input. It only translates: form text into the
 * body's types (numbers, the price read by parseMoney in the chosen currency, lists, demo link lines), with the chosen
 * image files standing in as pending paths until they are stored; checkSellerProduct, storeProductImages and
 * createSellerProduct/updateSellerProduct judge it. What it cannot translate (a price it cannot read, a demo link line
 * of the wrong shape, too many screenshots, no icon at all) it reports itself, in the form's words.
 */

const NUMERIC = new Set(["max_machines", "trial_days", "price_cents", "update_days"]);

function parseWhole(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d{1,6}$/.test(t) ? Number(t) : Number.NaN;
}

const tags = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const urlList = (text: string) =>
  text
    .split(/\s+/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The demo links field: one per line, "video|audio <address> <title>" (the kind may be left out for a video). Lines
 * that do not have that shape are reported by number; the schema checks the rest (https only, title length).
 */
function demoLinkLines(text: string): { links: Array<{ kind: string; url: string; title: string }>; problems: string[] } {
  const links: Array<{ kind: string; url: string; title: string }> = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    const m = /^(?:(video|audio)\s+)?(\S+)\s+(\S.*)$/i.exec(line);
    if (!m) {
      problems.push(`Line ${i + 1}: write video or audio, then the https:// address, then a title.`);
      return;
    }
    links.push({ kind: (m[1] ?? "video").toLowerCase(), url: m[2] ?? "", title: (m[3] ?? "").trim() });
  });
  return { links, problems };
}

function files(fd: FormData, name: string): File[] {
  return fd.getAll(name).filter((v): v is File => typeof v !== "string" && v.size > 0);
}

// Stand-ins for chosen files while the rest of the form is checked: a file is stored only once the whole form is valid.
const PENDING_ICON = "/uploads/pending-icon";
const pendingImage = (i: number) => `/uploads/pending-image-${String(i)}`;

export interface ProductForm {
  /** What the seller typed, to put back into the form after a refusal. */
  values: FormState["values"];
  /** The product as the operations take it, chosen files as pending paths. */
  body: Record<string, unknown>;
  /** What could not be translated, in the form's words. */
  errors: FormState["errors"];
  /** Body fields whose problems `errors` already names (the price it could not read, say): not reported twice. */
  handled: Set<string>;
  /** The chosen files: the icon, then the screenshots; none stored yet. */
  icon: File | null;
  images: File[];
  /** The currency the price was read in. */
  currency: string;
  /** Whether the browser sent the form keeping its chosen files (with JavaScript): it puts them back after a refusal. */
  filesKept: boolean;
}

/**
 * The product form's fields in the seller product schema's shape (the schema the API uses too). `currentIcon` is the
 * saved icon, kept when an edit gives neither a file nor a URL.
 */
export function readProductForm(fd: FormData, currentIcon: string | null): ProductForm {
  const values = formValues(fd, PRODUCT_TEXT_FIELDS, ["platforms"]);
  const errors: FormState["errors"] = {};
  const handled = new Set<string>();

  const icon = files(fd, "icon")[0] ?? null;
  const imageUrls = urlList(formText(fd, "images"));
  let images = files(fd, "image_files");
  if (imageUrls.length + images.length > MAX_SCREENSHOTS) {
    addError(errors, "image_files", `At most ${MAX_SCREENSHOTS} screenshots in all; remove some URLs or choose fewer files.`);
    handled.add("images");
    images = [];
  }
  values.images = imageUrls.join("\n");

  // Read in the currency chosen with it (its decimals, its sign); an unknown one is the currency field's problem.
  const chosenCurrency = String(values.currency).trim().toLowerCase();
  const currency = (SUPPORTED_CURRENCIES as readonly string[]).includes(chosenCurrency) ? chosenCurrency : PRICING.currency;
  const price = parseMoney(String(values.price), currency);
  if (!price.ok) {
    addError(errors, "price", price.code === "empty" ? "Enter a price." : price.message);
    handled.add("price_cents");
  }

  const iconUrl = (icon ? PENDING_ICON : "") || String(values.icon_url).trim() || currentIcon || "";
  if (!iconUrl) {
    addError(errors, "icon", "Upload an icon or enter the address of one.");
    handled.add("icon_url");
  }

  const demos = demoLinkLines(String(values.demo_links));
  for (const problem of demos.problems) addError(errors, "demo_links", problem);
  if (demos.problems.length > 0) handled.add("demo_links");
  const updatePolicy = String(values.update_policy).trim() || undefined;

  const trial = values.trial_available === "on";
  const body = {
    name: values.name,
    tagline: values.tagline,
    description: values.description,
    plugin_id: String(values.plugin_id).trim().toLowerCase(),
    price_cents: price.ok ? price.minor : undefined,
    currency: String(values.currency).trim() || undefined,
    category: values.category || undefined,
    max_machines: parseWhole(String(values.max_machines)),
    seat_model: values.seat_model || undefined,
    trial_available: trial,
    trial_days: trial ? parseWhole(String(values.trial_days)) : 0,
    allow_transfers: values.allow_transfers === "on",
    platforms: values.platforms,
    compatibility: tags(String(values.compatibility)),
    inputs: tags(String(values.inputs)),
    outputs: tags(String(values.outputs)),
    min_version: String(values.min_version).trim() || null,
    download_url: String(values.download_url).trim(),
    icon_url: iconUrl || undefined,
    images: [...imageUrls, ...images.map((_, i) => pendingImage(i))],
    update_policy: updatePolicy,
    // Like the trial length: the day count is read only with the policy that uses it.
    update_days: updatePolicy === "days" ? parseWhole(String(values.update_days)) : null,
    // Browsers send line breaks as CRLF; stored as LF, as the API takes them.
    system_requirements: String(values.system_requirements).replace(/\r\n?/g, "\n"),
    demo_links: demos.links,
  };
  return { values, body, errors, handled, icon, images, currency, filesKept: formText(fd, FILES_KEPT_FIELD) === "1" };
}

/** The chosen files in the order storeProductImages takes them: the icon first, then the screenshots. */
export const chosenFiles = (form: ProductForm): File[] => [...(form.icon ? [form.icon] : []), ...form.images];

/** A refused product operation's field problems next to the form's fields, in the product form's words. */
export function productProblems(problem: AppError, form: ProductForm, into: FormState["errors"] = {}): FormState["errors"] {
  return problemFieldErrors(
    problem,
    {
      sent: form.body,
      rename: { price_cents: "price" },
      numeric: NUMERIC,
      skip: form.handled,
      word: (issue, message) => {
        if (issue.field === "price_cents" && (issue.code === "too_big" || /at most/.test(issue.message)))
          return `Must be at most ${formatPrice(1_000_000, form.currency)}.`;
        if (issue.field === "price_cents" && (issue.code === "too_small" || /at least/.test(issue.message)))
          return `Must be at least ${formatPrice(100, form.currency)}.`;
        // A screenshot whose address could not be fetched and stored (lib/selling/uploads.ts) keeps its own reason.
        if (issue.field === "images" && issue.code === "custom" && typeof issue.path[1] === "number")
          return `Screenshot ${issue.path[1] + 1}: ${message}`;
        if (issue.field === "images" && issue.code !== "too_big") return "Each screenshot must be an uploaded file or a full https:// address.";
        // Which demo link: the schema's index is the link's place among the non-empty lines.
        if (issue.field === "demo_links" && typeof issue.path[1] === "number") return `Demo link ${issue.path[1] + 1}: ${message}`;
        return message;
      },
    },
    into,
  );
}

/** storeProductImages' refusal under the file fields: the icon's problem, or the screenshot's by its name. */
export function uploadProblems(problem: AppError, form: ProductForm, into: FormState["errors"] = {}): FormState["errors"] {
  const chosen = chosenFiles(form);
  const field = (i: number) => (form.icon && i === 0 ? "icon" : "image_files");
  const named = (problem.extra.errors ?? []).flatMap((e) => {
    const m = /^files\.(\d+)$/.exec(e.name);
    return m ? [{ i: Number(m[1]), message: e.message }] : [];
  });
  // Over the quota, or anything about the files together: under the first file field.
  if (named.length === 0) addError(into, field(0), problem.detail);
  for (const { i, message } of named) addError(into, field(i), field(i) === "icon" ? message : `${chosen[i]?.name ?? "A file"}: ${message}`);
  return into;
}

/** The form refused: its problems, and (a plain form post cannot keep them) a word about choosing the files again. */
export function refusedProductForm(form: ProductForm, errors: FormState["errors"], message?: string): FormState {
  const state = refused(form.values, errors, message);
  if ((form.icon || form.images.length > 0) && !form.values[FILES_STORED_VALUE] && !form.filesKept) {
    state.message = `${state.message ?? ""} Choose your image files again: files are stored only when the form is saved.`.trim();
  }
  return state;
}

/**
 * The form with its chosen files stored (`paths`, in chosenFiles' order): the body points at them, and the values
 * too, so a later refusal shows the stored paths and the browser does not send the files again.
 */
export function withStoredFiles(form: ProductForm, paths: readonly string[]): ProductForm {
  const left = [...paths];
  const icon = form.icon ? left.shift() : undefined;
  const images = (form.body.images as string[]).map((p) => (p.startsWith("/uploads/pending-image-") ? (left.shift() ?? p) : p));
  const values: FormState["values"] = { ...form.values, images: images.join("\n"), [FILES_STORED_VALUE]: "1" };
  if (icon) values.icon_url = icon;
  return { ...form, values, body: { ...form.body, ...(icon ? { icon_url: icon } : {}), images } };
}
