import { createDeveloperProfile } from "@/lib/dashboard/developer-profile";
import { connectTestPayoutAccount } from "@/lib/payouts/test-account";

/**
 * A seller who may publish paid listings: the profile plus the built-in test payout account (what a seller does on
 * the Payouts page in test mode). Tests about selling use this; tests about the publish gate itself do not.
 */
export async function sellingDeveloper(...args: Parameters<typeof createDeveloperProfile>) {
  const dev = await createDeveloperProfile(...args);
  await connectTestPayoutAccount(dev.id);
  return dev;
}
