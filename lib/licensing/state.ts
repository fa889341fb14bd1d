/** A license as validation and activation read it, whichever way it was loaded (the client, or the direct readers). */

/** What the licensing rules need to know about one license, loaded in one query. */
export interface LicenseState {
  id: string;
  key: string;
  productId: string;
  productName: string;
  pluginId: string;
  buyerEmail: string;
  isActive: boolean;
  /** Why it is not active ("seller", "refunded", "disputed", "dispute_lost", "upgraded"); null while active. */
  revocation?: string | null;
  /** The standing of the subscription the license follows ("past_due", …); null for a license bought once. */
  billing?: string | null;
  trial: boolean;
  maxMachines: number;
  issuedAt: number;
  /** Epoch ms; null for a perpetual license. */
  expiresAt: number | null;
  /**
   * Epoch ms: the last day releases count for it (an updates plan's paid end, a subscription's perpetual fallback);
   * null when the product's update policy alone decides. Read by the update calls, not by validation (absent there).
   */
  updatesUntil?: number | null;
  /** fingerprint → activation (with what the app said about the machine, when loaded for activation) */
  machines: Map<string, MachineState>;
  loadedAt: number;
}

export interface MachineState {
  id: string;
  activatedAt: number;
  machineName?: string | null;
  platform?: string | null;
  appVersion?: string | null;
}
