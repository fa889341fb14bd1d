/** The marketplace's fixed vocabularies. Everything else (zod enums, OpenAPI, tool schemas, UI filters) derives from these lists. */

export const CATEGORIES = ["audio-plugins", "desktop-apps", "game-assets", "3d-vfx", "dev-tools", "creative-tools"] as const;
export type Category = (typeof CATEGORIES)[number];

export const CATEGORY_LABELS: Record<Category, string> = {
  "audio-plugins": "Audio plugins",
  "desktop-apps": "Desktop apps",
  "game-assets": "Game assets",
  "3d-vfx": "3D & VFX",
  "dev-tools": "Developer tools",
  "creative-tools": "Creative tools",
};

export const SEAT_MODELS = ["per-machine", "per-user", "per-seat", "floating"] as const;
export type SeatModel = (typeof SEAT_MODELS)[number];

export const PLATFORMS = ["windows", "macos", "linux"] as const;
export type Platform = (typeof PLATFORMS)[number];

/**
 * What a seller's product may be, by the seller's choice: a draft (never shown to buyers; where every new product
 * starts until its seller publishes it), listed, or unlisted by them.
 */
export const PRODUCT_STATUSES = ["draft", "active", "unlisted"] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/**
 * Statuses only the operator sets: "suspended" while the product's seller is suspended (back to "active" on
 * reinstatement), "removed" when the operator unlists it with a reason. Neither is listed, bought or relisted by the seller.
 */
export const OPERATOR_PRODUCT_STATUSES = ["suspended", "removed"] as const;
