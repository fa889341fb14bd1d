import type { Db } from "../../lib/db.ts";
import { buildSearchText } from "../../lib/marketplace/search-text.ts";
import { syncProductSearch } from "../../lib/marketplace/search-index.ts";
import { paths } from "../../lib/urls.ts";
import { seedMediaFiles } from "./media.ts";
import { developers, products } from "./catalogue.ts";

const DAY = 86_400_000;

/**
 * Seeds the demo catalogue into an empty database. Does nothing when any developer exists, so it is safe on every
 * start and never touches a database that holds real data. Returns the number of products written.
 */
export async function seedDemoCatalogue(db: Db, now = new Date()): Promise<number> {
  if ((await db.developer.count()) > 0) return 0;
  // The cover art and audio demos go to the object store first (content-addressed: storing them again is harmless),
  // so that no row below points at a file that is not there.
  const media = await seedMediaFiles(products.map((p) => ({ id: p.id, name: p.name })));
  return db.$transaction(async (tx) => {
    if ((await tx.developer.count()) > 0) return 0;
    await tx.developer.createMany({
      data: developers.map((d) => ({
        id: d.id,
        name: d.name,
        email: d.email,
        website: d.website,
        bio: d.bio,
        refundPolicy: d.refundPolicy,
        supportEmail: d.supportEmail ?? null,
        supportUrl: d.supportUrl ?? null,
      })),
    });
    // The demo sellers' built-in test payout accounts, ready: their paid listings pass the publishing gate (relist,
    // price edits) and sell in test mode. A Stripe deployment does not count a test account as ready.
    await tx.payoutAccount.createMany({
      data: developers.map((d) => ({
        id: `test_acct_demo_${d.id}`,
        developerId: d.id,
        provider: "test",
        chargesEnabled: true,
        payoutsEnabled: true,
        detailsSubmitted: true,
        requirementsDue: [],
        statusAsOf: Math.floor(now.getTime() / 1000),
      })),
    });
    const names = new Map(developers.map((d) => [d.id, d.name]));
    await tx.product.createMany({
      data: products.map((p) => {
        const created = new Date(now.getTime() - p.listedDaysAgo * DAY);
        return {
          id: p.id,
          pluginId: p.pluginId,
          developerId: p.developerId,
          name: p.name,
          tagline: p.tagline,
          description: p.description,
          priceCents: p.priceCents,
          currency: "usd",
          category: p.category,
          maxMachines: p.maxMachines,
          seatModel: p.seatModel,
          trialAvailable: p.trialAvailable,
          trialDays: p.trialAvailable ? p.trialDays : 0,
          platforms: p.platforms,
          compatibility: p.compatibility,
          inputs: p.inputs,
          outputs: p.outputs,
          images: p.screenshotPaths,
          minVersion: p.minVersion,
          downloadUrl: paths.download(p.id),
          iconUrl: p.iconPath,
          status: "active",
          salesCount: p.salesCount,
          searchText: buildSearchText({ ...p, developerName: names.get(p.developerId) ?? "" }),
          createdAt: created,
          updatedAt: created,
        };
      }),
    });
    await tx.productMedia.createMany({ data: media });
    await syncProductSearch(tx, { productIds: products.map((p) => p.id) });
    return products.length;
  }, SEED_TRANSACTION);
}

/**
 * How long the one seeding transaction may wait for its connection and run, once per database at the first start:
 * Prisma's default bound of 5 s was passed on a loaded 2-core machine (6.7 s, two instances starting on one
 * PostgreSQL database), and the server then refused to start.
 */
const SEED_TRANSACTION = { maxWait: 30_000, timeout: 60_000 };
