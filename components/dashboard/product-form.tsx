import type { ReactNode } from "react";
import { CATEGORIES, CATEGORY_LABELS, PLATFORMS, SEAT_MODELS, type SeatModel } from "@/lib/marketplace/constants";
import { MAX_UPLOAD_BYTES } from "@/lib/selling/uploads";
import { MAX_DEMO_LINKS, SYSTEM_REQUIREMENTS_MAX, UPDATE_DAYS_MAX, type ProductInput } from "@/lib/marketplace/schemas";
import { currencyLabel, minorToDecimal, PRICING, SUPPORTED_CURRENCIES } from "@/lib/pricing";
import { IdempotencyField } from "@/components/forms/idempotency-field";
import { PLATFORM_LABELS, SEAT_MODEL_LABELS } from "@/components/store/labels";
import { formatBytes } from "@/lib/format";
import { card } from "@/components/ui/styles";
import { ActionForm, CheckboxField, ChoiceGroup, FileField, SelectField, SubmitButton, TextAreaField, TextField } from "./form-fields";
import type { FormState } from "./form-state";
import { MAX_SCREENSHOTS, PRODUCT_LABELS as L } from "./product-fields";

const SEAT_HINTS: Record<SeatModel, string> = {
  "per-machine": "Each computer takes a seat.",
  "per-user": "One person, their own machines.",
  "per-seat": "Teams buy a number of seats.",
  floating: "Seats are shared as they are used.",
};

const UPDATE_CHOICES = [
  { value: "all", label: "Every release", description: "A license downloads and updates to every version you publish." },
  { value: "days", label: "For a number of days", description: "Releases published within that many days of the purchase." },
  { value: "major", label: "This major version", description: "Releases of the major versions out when the license was bought (1.x)." },
] as const;

/** The demo links as the form's text: one per line, "video|audio <https URL> <title>". */
function demoLinksText(links: ProductInput["demo_links"]): string {
  return (links ?? []).map((l) => `${l.kind} ${l.url} ${l.title}`).join("\n");
}

const IMAGE_TYPES = "image/png,image/jpeg,image/webp,image/gif";
const KIB = MAX_UPLOAD_BYTES / 1024;
/**
 * The most chosen files one save may send: Next's server-action body limit (1 MiB) less room for the text fields. A
 * round figure, so the note and the refusal (both through formatBytes) say the same number.
 */
const MAX_FORM_BYTES = 900_000;

function Group({ legend, description, children }: { legend: string; description?: string; children: ReactNode }) {
  return (
    <fieldset className={`${card} min-w-0 p-5 sm:p-6`}>
      {/* Floated so the legend sits inside the card instead of on its border. */}
      <legend className="float-left w-full text-base font-semibold text-slate-900">{legend}</legend>
      <div className="clear-both">
        {description ? <p className="pt-1 text-sm text-slate-600">{description}</p> : null}
        <div className="mt-5 space-y-5">{children}</div>
      </div>
    </fieldset>
  );
}

export interface ProductFormProps {
  action: (state: FormState, formData: FormData) => Promise<FormState>;
  /** The saved product's values (edit) or nothing (new). */
  initial?: ProductInput;
  submitLabel: string;
  /** What the icon field says about the saved icon on edit. */
  hasCurrentIcon?: boolean;
  /** A new product's form: its idempotency key, made when the page is drawn (see IdempotencyField). */
  idempotencyKey?: string;
}

export function ProductForm({ action, initial, submitLabel, hasCurrentIcon, idempotencyKey }: ProductFormProps) {
  const v = initial;
  const editing = Boolean(initial);
  return (
    <ActionForm
      action={action}
      prefix="product"
      labels={L}
      label={editing ? "Edit product" : "New product"}
      maxBodyBytes={MAX_FORM_BYTES}
      className="space-y-6"
    >
      {idempotencyKey ? <IdempotencyField value={idempotencyKey} /> : null}
      <Group legend="Basics" description="What buyers see first in the store and what agents read in the catalog.">
        <TextField name="name" label={L.name} defaultValue={v?.name} required maxLength={80} autoComplete="off" />
        <TextField
          name="tagline"
          label={L.tagline}
          defaultValue={v?.tagline}
          optional
          maxLength={160}
          hint="One line under the name, up to 160 characters."
        />
        <TextAreaField
          name="description"
          label={L.description}
          defaultValue={v?.description}
          required
          rows={7}
          maxLength={5000}
          hint="At least 20 characters. Leave a blank line between paragraphs."
        />
        <SelectField
          name="category"
          label={L.category}
          defaultValue={v?.category ?? ""}
          placeholder="Choose a category"
          required
          options={CATEGORIES.map((c) => ({ value: c, label: CATEGORY_LABELS[c] }))}
        />
      </Group>

      <Group
        legend="Price and licensing"
        description={`One purchase is one license key. The platform keeps ${PRICING.transaction_fee_percent} % of what the buyer pays (after any coupon, before tax); you receive the rest.`}
      >
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField
            name="price"
            label={L.price}
            defaultValue={v ? minorToDecimal(v.price_cents, v.currency ?? PRICING.currency) : ""}
            inputMode="decimal"
            required
            placeholder="29.00"
            hint="At least 1.00, in the currency you choose."
          />
          <SelectField
            name="currency"
            label={L.currency}
            defaultValue={v?.currency ?? PRICING.currency}
            required
            options={SUPPORTED_CURRENCIES.map((c) => ({ value: c, label: currencyLabel(c) }))}
            hint="Buyers pay in this currency; every price shows its code."
          />
          <TextField
            name="max_machines"
            label={L.max_machines}
            type="number"
            min={1}
            max={100}
            step={1}
            defaultValue={String(v?.max_machines ?? 2)}
            required
            hint="Buyers can release a machine themselves and move the seat."
          />
        </div>
        <ChoiceGroup
          name="seat_model"
          legend={L.seat_model}
          type="radio"
          columns="sm:grid-cols-2"
          defaultValue={v?.seat_model ?? "per-machine"}
          options={SEAT_MODELS.map((m) => ({ value: m, label: SEAT_MODEL_LABELS[m], description: SEAT_HINTS[m] }))}
        />
        <div className="grid gap-5 sm:grid-cols-2 sm:items-start">
          <CheckboxField
            name="trial_available"
            label={L.trial_available}
            defaultChecked={v?.trial_available ?? false}
            hint="A time-limited key, one per buyer and product."
          />
          <TextField
            name="trial_days"
            label={`${L.trial_days} (days)`}
            type="number"
            min={1}
            max={90}
            step={1}
            defaultValue={v?.trial_days ? String(v.trial_days) : "14"}
            hint="1 to 90 days; used when the trial is on."
          />
        </div>
        <CheckboxField
          name="allow_transfers"
          label={L.allow_transfers}
          defaultChecked={v?.allow_transfers ?? false}
          hint="A buyer may hand a license to another e-mail address; it gets a new key and its machines are released."
        />
      </Group>

      <Group legend="Platforms and compatibility" description="Shown as badges and searchable by buyers and agents.">
        <ChoiceGroup
          name="platforms"
          legend={L.platforms}
          type="checkbox"
          hint="Choose at least one."
          defaultValue={v?.platforms ?? []}
          options={PLATFORMS.map((p) => ({ value: p, label: PLATFORM_LABELS[p] }))}
        />
        <TextField
          name="compatibility"
          label={L.compatibility}
          defaultValue={v?.compatibility.join(", ")}
          optional
          hint="Comma-separated, e.g. VST3, AU, AAX."
        />
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField name="inputs" label={L.inputs} defaultValue={v?.inputs.join(", ")} optional hint="Comma-separated: what it accepts." />
          <TextField name="outputs" label={L.outputs} defaultValue={v?.outputs.join(", ")} optional hint="Comma-separated: what it produces." />
        </div>
        <TextField
          name="min_version"
          label={L.min_version}
          defaultValue={v?.min_version ?? ""}
          optional
          maxLength={60}
          hint="E.g. macOS 12, Ableton Live 11."
        />
        <TextAreaField
          name="system_requirements"
          label={L.system_requirements}
          defaultValue={v?.system_requirements ?? ""}
          optional
          rows={3}
          maxLength={SYSTEM_REQUIREMENTS_MAX}
          hint={`Plain text, up to ${SYSTEM_REQUIREMENTS_MAX} characters: operating system versions, processor, memory, disk space.`}
        />
      </Group>

      <Group
        legend="Updates"
        description="Publish versions with their files on the product's Releases page. This decides which of them a license may download and update to."
      >
        <ChoiceGroup
          name="update_policy"
          legend={L.update_policy}
          type="radio"
          columns="sm:grid-cols-3"
          defaultValue={v?.update_policy ?? "all"}
          options={UPDATE_CHOICES.map((c) => ({ value: c.value, label: c.label, description: c.description }))}
        />
        <TextField
          name="update_days"
          label={L.update_days}
          type="number"
          min={1}
          max={UPDATE_DAYS_MAX}
          step={1}
          defaultValue={v?.update_days ? String(v.update_days) : "365"}
          hint={`1 to ${UPDATE_DAYS_MAX} days after the purchase; used with "For a number of days".`}
        />
      </Group>

      <Group
        legend="Files and images"
        description={`Images: PNG, JPEG, WebP or GIF up to ${KIB} KiB each, and up to ${formatBytes(MAX_FORM_BYTES)} of files per save. Uploads are served from this site and count towards your storage quota; a replaced image is deleted.`}
      >
        <TextField
          name="download_url"
          label={L.download_url}
          type="url"
          defaultValue={v?.download_url}
          required
          placeholder="https://example.com/downloads/myapp.dmg"
          hint="An https:// address where license holders get the installer. Buyers reach it through a link in their license e-mail that checks their license first."
        />
        <fieldset className="min-w-0 space-y-4 rounded-xl border border-slate-200 p-4">
          <legend className="px-1 text-sm font-semibold text-slate-900">Icon</legend>
          <FileField
            name="icon"
            label={L.icon}
            accept={IMAGE_TYPES}
            optional={editing}
            hint={hasCurrentIcon ? "Choose a file to replace the current icon; leave empty to keep it." : "Square, at least 128 × 128 pixels."}
          />
          <TextField
            name="icon_url"
            label={`…or ${L.icon_url}`}
            defaultValue={v?.icon_url}
            optional
            hint="An uploaded file's path, or an https:// address: the image is fetched once and stored here, as an upload would be. A chosen file wins."
          />
        </fieldset>
        <fieldset className="min-w-0 space-y-4 rounded-xl border border-slate-200 p-4">
          <legend className="px-1 text-sm font-semibold text-slate-900">Screenshots</legend>
          <FileField
            name="image_files"
            label={L.image_files}
            accept={IMAGE_TYPES}
            multiple
            optional
            hint={`Up to ${MAX_SCREENSHOTS} in all, added after the URLs below.`}
          />
          <TextAreaField
            name="images"
            label={L.images}
            defaultValue={v?.images.join("\n")}
            optional
            rows={3}
            hint="One per line, in the order to show them: uploaded files' paths or https:// addresses (each fetched once and stored here). Delete a line to remove a screenshot."
          />
        </fieldset>
        <TextAreaField
          name="demo_links"
          label={L.demo_links}
          defaultValue={demoLinksText(v?.demo_links)}
          optional
          rows={3}
          placeholder="video https://example.com/tour Quick tour"
          hint={`Up to ${MAX_DEMO_LINKS}, one per line: video or audio, an https:// address, then a title (up to 80 characters). Shown as links: nothing from those sites loads with your page.`}
        />
      </Group>

      <Group
        legend="Integration"
        description="Your app sends this id with every /validate and /activate call, so a key for one product never unlocks another."
      >
        <TextField
          name="plugin_id"
          label={L.plugin_id}
          defaultValue={v?.plugin_id}
          required
          autoComplete="off"
          spellCheck={false}
          placeholder="com.example.myapp"
          hint="A reverse-domain id, lowercase: com.yourstudio.appname. Changing it breaks shipped builds."
        />
      </Group>

      <div className="flex flex-wrap items-center gap-3">
        <SubmitButton pendingLabel="Saving…">{submitLabel}</SubmitButton>
        <p className="text-sm text-slate-600">
          {editing ? "Changes are live in the store and the API as soon as they are saved." : "The product is listed as soon as it is created."}
        </p>
      </div>
    </ActionForm>
  );
}
