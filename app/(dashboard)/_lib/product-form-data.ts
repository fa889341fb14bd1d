import { sellerProductInputSchema } from "@/lib/dashboard/seller-product";
import { checkUpload, saveUploads } from "@/lib/dashboard/uploads";
import { AppError } from "@/lib/http/errors";
import type { ProductInput } from "@/lib/marketplace/schemas";
import { parseMoney } from "@/lib/money/parse-money";
import { formatPrice, PRICING, SUPPORTED_CURRENCIES } from "@/lib/pricing";
import {
  addError,
  FILES_KEPT_FIELD,
  FILES_STORED_VALUE,
  formText,
  formValues,
  issueMessage,
  refused,
  type FormState,
} from "@/components/dashboard/form-state";
import { MAX_SCREENSHOTS, PRODUCT_TEXT_FIELDS } from "@/components/dashboard/product-fields";

/** Schema fields shown under another form field. */
const FIELD_OF: Record<string, string> = { price_cents: "price" };
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

const bytesOf = async (file: File) => new Uint8Array(await file.arrayBuffer());

// Stand-ins for chosen files while the rest of the form is checked: a file is stored only once the whole form is valid.
const PENDING_ICON = "/uploads/pending-icon";
const pendingImage = (i: number) => `/uploads/pending-image-${String(i)}`;

export type ProductFormResult = { ok: true; input: ProductInput; values: FormState["values"] } | { ok: false; state: FormState };

/**
 * The product form's fields in the seller product schema's shape (the schema the API uses too). Every field and every
 * chosen file (type by its bytes, size) is checked first; only then are the files stored, within the seller's upload
 * quota, so a refused form leaves nothing on disk. `currentIcon` is the saved icon, kept when an edit gives neither a
 * file nor a URL.
 */
export async function readProductForm(fd: FormData, currentIcon: string | null, developerId: string): Promise<ProductFormResult> {
  const values = formValues(fd, PRODUCT_TEXT_FIELDS, ["platforms"]);
  const errors: FormState["errors"] = {};
  const handled = new Set<string>();

  const chosenIcon = files(fd, "icon")[0];
  let iconBytes: Uint8Array | null = null;
  if (chosenIcon) {
    try {
      iconBytes = await bytesOf(chosenIcon);
      checkUpload(iconBytes);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      addError(errors, "icon", error.detail);
      handled.add("icon_url");
    }
  }

  const imageUrls = urlList(formText(fd, "images"));
  const imageFiles = files(fd, "image_files");
  const imageBytes: Uint8Array[] = [];
  if (imageUrls.length + imageFiles.length > MAX_SCREENSHOTS) {
    addError(errors, "image_files", `At most ${MAX_SCREENSHOTS} screenshots in all; remove some URLs or choose fewer files.`);
    handled.add("images");
  } else {
    for (const file of imageFiles) {
      try {
        const bytes = await bytesOf(file);
        checkUpload(bytes);
        imageBytes.push(bytes);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        addError(errors, "image_files", `${file.name}: ${error.detail}`);
      }
    }
  }
  const images = [...imageUrls, ...imageBytes.map((_, i) => pendingImage(i))];
  values.images = imageUrls.join("\n");

  // Read in the currency chosen with it (its decimals, its sign); an unknown one is the currency field's problem.
  const chosenCurrency = String(values.currency).trim().toLowerCase();
  const priceCurrency = (SUPPORTED_CURRENCIES as readonly string[]).includes(chosenCurrency) ? chosenCurrency : PRICING.currency;
  const price = parseMoney(String(values.price), priceCurrency);
  if (!price.ok) {
    addError(errors, "price", price.code === "empty" ? "Enter a price." : price.message);
    handled.add("price_cents");
  }

  const iconUrl = (iconBytes ? PENDING_ICON : "") || String(values.icon_url).trim() || currentIcon || "";
  if (!iconUrl && !errors.icon) {
    addError(errors, "icon", "Upload an icon or enter the address of one.");
    handled.add("icon_url");
  }

  const demos = demoLinkLines(String(values.demo_links));
  for (const problem of demos.problems) addError(errors, "demo_links", problem);
  if (demos.problems.length > 0) handled.add("demo_links");
  const updatePolicy = String(values.update_policy).trim() || undefined;

  const trial = values.trial_available === "on";
  const candidate = {
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
    platforms: values.platforms,
    compatibility: tags(String(values.compatibility)),
    inputs: tags(String(values.inputs)),
    outputs: tags(String(values.outputs)),
    min_version: String(values.min_version).trim() || null,
    download_url: String(values.download_url).trim(),
    icon_url: iconUrl || undefined,
    images,
    update_policy: updatePolicy,
    // Like the trial length: the day count is read only with the policy that uses it.
    update_days: updatePolicy === "days" ? parseWhole(String(values.update_days)) : null,
    // Browsers send line breaks as CRLF; stored as LF, as the API takes them.
    system_requirements: String(values.system_requirements).replace(/\r\n?/g, "\n"),
    demo_links: demos.links,
  };

  const parsed = sellerProductInputSchema.safeParse(candidate, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? "_form");
      if (handled.has(key)) continue;
      let message = issueMessage(issue, NUMERIC);
      if (key === "price_cents" && issue.code === "too_big") message = `Must be at most ${formatPrice(1_000_000, priceCurrency)}.`;
      if (key === "price_cents" && issue.code === "too_small") message = `Must be at least ${formatPrice(100, priceCurrency)}.`;
      if (key === "images") message = issue.code === "too_big" ? message : `Each screenshot must be an uploaded file or a full https:// address.`;
      // Which demo link: the schema's index is the link's place among the non-empty lines.
      if (key === "demo_links" && typeof issue.path[1] === "number") message = `Demo link ${issue.path[1] + 1}: ${message}`;
      addError(errors, FIELD_OF[key] ?? key, message);
    }
  }
  const chosen = chosenIcon !== undefined || imageFiles.length > 0;
  if (Object.keys(errors).length > 0 || !parsed.success) {
    const state = refused(values, errors);
    // With JavaScript the form puts the chosen files back itself; a plain form post cannot.
    if (chosen && formText(fd, FILES_KEPT_FIELD) !== "1") {
      state.message = `${state.message ?? ""} Choose your image files again: files are stored only when the form is saved.`.trim();
    }
    return { ok: false, state };
  }

  const toStore = [...(iconBytes ? [iconBytes] : []), ...imageBytes];
  if (toStore.length === 0) return { ok: true, input: parsed.data, values };
  let stored: string[];
  try {
    stored = await saveUploads(developerId, toStore);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    addError(errors, iconBytes ? "icon" : "image_files", error.detail);
    return { ok: false, state: refused(values, errors) };
  }
  const storedIcon = iconBytes ? stored.shift() : undefined;
  const input: ProductInput = {
    ...parsed.data,
    icon_url: storedIcon ?? parsed.data.icon_url,
    images: parsed.data.images.map((path) => (path.startsWith("/uploads/pending-image-") ? (stored.shift() ?? path) : path)),
  };
  if (storedIcon) values.icon_url = storedIcon;
  values.images = input.images.join("\n");
  values[FILES_STORED_VALUE] = "1";
  return { ok: true, input, values };
}
