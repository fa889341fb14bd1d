import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@/lib/db";
import { updateDeveloperProfile } from "@/lib/selling/developer-profile";
import { sellingDeveloper } from "../helpers/sellers";
import { createProduct } from "@/lib/selling/products";
import { listProducts } from "@/lib/marketplace/list-products";
import { productInputSchema, type ProductInput } from "@/lib/marketplace/schemas";
import { buildSearchText } from "@/lib/marketplace/search-text";

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

function productInput(): ProductInput {
  const id = unique();
  return productInputSchema.parse({
    name: `Profile Synth ${id}`,
    tagline: "A test product.",
    description: "A product created by the developer profile tests, with a long enough description.",
    plugin_id: `com.test.profile${id}`,
    price_cents: 1500,
    category: "audio-plugins",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux", "macos"],
    compatibility: ["VST3"],
    download_url: "https://example.com/download",
    icon_url: "/icons/tape-warmth.svg",
  });
}

const search = async (term: string) => (await listProducts({ search: term, sort: "name", page: 1, limit: 50 })).rows.map((r) => r.id).sort();

describe("renaming a developer", () => {
  it("rebuilds the search text of every product of theirs, and only theirs", async () => {
    const before = `zyx${unique()}`;
    const after = `qpo${unique()}`;
    const dev = await sellingDeveloper(`rename-${unique()}@example.com`, { name: `${before} Audio`, website: null, bio: "" });
    const other = await sellingDeveloper(`other-${unique()}@example.com`, { name: `${before} Others`, website: null, bio: "" });
    const inputs = [productInput(), productInput()];
    const mine = [await createProduct(dev.id, inputs[0]!, { publish: true }), await createProduct(dev.id, inputs[1]!, { publish: true })];
    const theirs = await createProduct(other.id, productInput(), { publish: true });
    expect(await search(before)).toEqual([...mine.map((p) => p.id), theirs.id].sort());

    await updateDeveloperProfile(dev.id, { name: `${after} Tools`, website: "https://example.com", bio: "Renamed." });

    const rows = await getDb().product.findMany({ where: { id: { in: mine.map((p) => p.id) } }, orderBy: { id: "asc" } });
    for (const row of rows) {
      const input = inputs[mine.findIndex((p) => p.id === row.id)]!;
      // Exactly what a product save would write with the new name.
      expect(row.searchText).toBe(buildSearchText({ ...input, pluginId: input.plugin_id, developerName: `${after} Tools` }));
      expect(row.searchText).not.toContain(before);
    }
    expect(await search(after)).toEqual(mine.map((p) => p.id).sort());
    expect(await search(before)).toEqual([theirs.id]);
    const untouched = await getDb().product.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(untouched.searchText).toBe(theirs.searchText);
    expect(untouched.updatedAt).toEqual(theirs.updatedAt);
  });

  it("clears the marketplace read cache, also when no search text changes", async () => {
    const word = `cache${unique()}`;
    const dev = await sellingDeveloper(`cache-${unique()}@example.com`, { name: `${word} audio`, website: null, bio: "" });
    const product = await createProduct(dev.id, productInput(), { publish: true });
    const listing = () => listProducts({ developerId: dev.id, sort: "newest", page: 1, limit: 10 });
    expect((await listing()).rows.map((r) => r.developer.name)).toEqual([`${word} audio`]);

    // Only the case changes: the lower-cased search text stays as it is, so no product is written.
    await updateDeveloperProfile(dev.id, { name: `${word.toUpperCase()} Audio`, website: null, bio: "" });
    expect((await getDb().product.findUniqueOrThrow({ where: { id: product.id } })).updatedAt).toEqual(product.updatedAt);
    expect((await listing()).rows.map((r) => r.developer.name)).toEqual([`${word.toUpperCase()} Audio`]);
  });
});
