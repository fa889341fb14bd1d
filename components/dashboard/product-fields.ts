/** The product form's fields: names the server action reads, and the labels the form and its list of problems show. */
export const PRODUCT_TEXT_FIELDS = [
  "name",
  "tagline",
  "description",
  "plugin_id",
  "price",
  "currency",
  "category",
  "max_machines",
  "seat_model",
  "trial_available",
  "trial_days",
  "compatibility",
  "inputs",
  "outputs",
  "min_version",
  "download_url",
  "icon_url",
] as const;

export const MAX_SCREENSHOTS = 6;

/** In the order the form shows the fields (the list of problems follows it). */
export const PRODUCT_LABELS = {
  name: "Name",
  tagline: "Tagline",
  description: "Description",
  category: "Category",
  price: "Price",
  currency: "Currency",
  max_machines: "Machines per license",
  seat_model: "How seats are counted",
  trial_available: "Offer a free trial",
  trial_days: "Trial length",
  platforms: "Platforms",
  compatibility: "Compatibility",
  inputs: "Inputs",
  outputs: "Outputs",
  min_version: "Minimum host version",
  download_url: "Download URL",
  icon: "Icon file",
  icon_url: "Icon URL",
  image_files: "Screenshot files",
  images: "Screenshot URLs",
  plugin_id: "Plugin ID",
} satisfies Record<string, string>;
