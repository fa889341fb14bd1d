import { getDb } from "../db.ts";
import { env } from "../env.ts";
import { loadLicenseStateDirectly, loadLicenseStateOnPool } from "./direct-license-state.ts";
import type { LicenseState, MachineState } from "./state.ts";

export type { LicenseState, MachineState } from "./state.ts";

/** What the writers of a license's events and webhooks need besides its standing, read in the same query. */
export interface LoadedLicense extends LicenseState {
  machineCount: number;
  developerId: string;
  source: string;
  orderId: string | null;
}

const machineDetails = { machineName: true, platform: true, appVersion: true } as const;

function licenseSelect(fingerprint?: string) {
  return {
    id: true,
    key: true,
    buyerEmail: true,
    isActive: true,
    revocation: true,
    billing: true,
    trial: true,
    maxMachines: true,
    activeMachines: true,
    issuedAt: true,
    expiresAt: true,
    updatesUntil: true,
    source: true,
    orderId: true,
    product: { select: { id: true, name: true, pluginId: true, developerId: true } },
    // Activation compares the machine's details with what it reports; validation (and its cache) needs only the ids.
    activations: fingerprint
      ? { where: { fingerprint }, select: { id: true, fingerprint: true, activatedAt: true, ...machineDetails } }
      : { select: { id: true, fingerprint: true, activatedAt: true } },
  } as const;
}

async function load(key: string, fingerprint?: string): Promise<LoadedLicense | null> {
  const row = await getDb().license.findUnique({ where: { key }, select: licenseSelect(fingerprint) });
  if (!row) return null;
  return {
    id: row.id,
    key: row.key,
    productId: row.product.id,
    productName: row.product.name,
    pluginId: row.product.pluginId,
    buyerEmail: row.buyerEmail,
    isActive: row.isActive,
    revocation: row.revocation,
    billing: row.billing,
    trial: row.trial,
    maxMachines: row.maxMachines,
    issuedAt: row.issuedAt.getTime(),
    expiresAt: row.expiresAt?.getTime() ?? null,
    updatesUntil: row.updatesUntil?.getTime() ?? null,
    machines: new Map(
      row.activations.map((a): [string, MachineState] => {
        const { fingerprint: fp, activatedAt, ...rest } = a;
        return [fp, { ...rest, activatedAt: activatedAt.getTime() }];
      }),
    ),
    machineCount: row.activeMachines,
    developerId: row.product.developerId,
    source: row.source,
    orderId: row.orderId,
    loadedAt: Date.now(),
  };
}

/**
 * The license with all its machines: what validation (and its cache) needs, read without the client
 * (direct-license-state.ts) when it can be, otherwise through it.
 */
export async function loadLicenseState(key: string): Promise<LicenseState | null> {
  const direct = loadLicenseStateDirectly(key);
  if (direct !== undefined) return direct;
  const onPool = await loadLicenseStateOnPool(key);
  return onPool !== undefined ? onPool : load(key);
}

/** The same through the client, whatever the engine (the reference the direct read is tested against). */
export function loadLicenseStateThroughClient(key: string): Promise<LicenseState | null> {
  return load(key);
}

/**
 * The license with only the machine asked about (and the number of machines): what activation needs, whatever
 * the number of machines a floating or site license has collected.
 */
export function loadLicenseForMachine(key: string, fingerprint: string) {
  return load(key, fingerprint);
}

/**
 * A per-process cache of license state for the validation hot path. Writes in this process invalidate their
 * entry at once; other instances' writes are seen within `ttlMs`. Only answers that say "valid" are served from
 * it: anything else is checked against the database first, so a fresh activation elsewhere is never refused.
 */
export class LicenseCache {
  private entries = new Map<string, LicenseState>();

  constructor(
    private ttlMs: number,
    private maxEntries: number,
  ) {}

  get(key: string, now = Date.now()): LicenseState | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (now - hit.loadedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return hit;
  }

  set(state: LicenseState): void {
    this.entries.delete(state.key);
    this.entries.set(state.key, state);
    // Map iteration is insertion order: the first entry is the least recently loaded.
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  invalidate(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

// Shared through globalThis: server.ts's lean path and Next's bundled routes (revocation, say) must see one cache.
const KEY = Symbol.for("indie-license-market.license-cache");
const g = globalThis as unknown as Record<symbol, LicenseCache | undefined>;

export function licenseCache(): LicenseCache {
  return (g[KEY] ??= new LicenseCache(env().LICENSE_CACHE_TTL_MS, env().LICENSE_CACHE_SIZE));
}
