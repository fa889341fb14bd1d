import type { Category, Platform, SeatModel } from "../../lib/marketplace/constants";

export interface SeedDeveloper {
  /** URL-safe slug, stable across seeds, e.g. "tidewater-audio". */
  id: string;
  name: string;
  email: string;
  website: string;
  bio: string;
  /** Shown under "Support and refunds" on each product page; a paid listing needs it and a support contact. */
  refundPolicy: string;
  supportEmail?: string;
  supportUrl?: string;
}

export interface SeedProduct {
  /** URL-safe slug, stable across seeds, e.g. "tape-warmth". Used in /products/{id}. */
  id: string;
  /** Reverse-domain identifier the licensed app sends as plugin_id, e.g. "com.tidewateraudio.tapewarmth". */
  pluginId: string;
  developerId: string;
  name: string;
  /** One sentence shown on cards. */
  tagline: string;
  /** 2–4 short paragraphs separated by blank lines; plain text. */
  description: string;
  priceCents: number;
  category: Category;
  /** 1 to 5. */
  maxMachines: number;
  seatModel: SeatModel;
  trialAvailable: boolean;
  /** 0 when no trial, otherwise 7, 14, 21 or 30. */
  trialDays: number;
  platforms: Platform[];
  compatibility: string[];
  inputs: string[];
  outputs: string[];
  /** Minimum host version, e.g. "Ableton Live 11" or "Unity 2022.3"; null when not applicable. */
  minVersion: string | null;
  /** Path under /public, e.g. "/icons/tape-warmth.svg". */
  iconPath: string;
  /** Paths under /public of 1–2 screenshots, e.g. "/screens/tape-warmth-1.svg". */
  screenshotPaths: string[];
  /** Days before the seed time at which the product was listed (gives a realistic "newest" order). */
  listedDaysAgo: number;
  /** Past sales, used by the "popular" sort. */
  salesCount: number;
}
