import type { Platform, SeatModel } from "@/lib/marketplace/constants";
import type { ProductSort } from "@/lib/marketplace/schemas";

export const PLATFORM_LABELS: Record<Platform, string> = {
  windows: "Windows",
  macos: "macOS",
  linux: "Linux",
};

export function platformLabel(platform: string): string {
  return (PLATFORM_LABELS as Record<string, string>)[platform] ?? platform;
}

export const SEAT_MODEL_LABELS: Record<SeatModel, string> = {
  "per-machine": "Per machine",
  "per-user": "Per user",
  "per-seat": "Per seat",
  floating: "Floating",
};

export function seatModelLabel(model: string): string {
  return (SEAT_MODEL_LABELS as Record<string, string>)[model] ?? model;
}

export const SORT_LABELS: Record<ProductSort, string> = {
  relevance: "Best match",
  newest: "Newest",
  popular: "Most popular",
  price_asc: "Price: low to high",
  price_desc: "Price: high to low",
  name: "Name (A–Z)",
  rating: "Top rated",
};

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}
