import { deviceRequestForOrder } from "@/lib/device/read-request";

/**
 * On a paid checkout's page: when the order was opened for an app waiting with a device code, say that the app picks
 * the license up by itself, so the buyer does not go looking for a place to type the key.
 */
export async function DeviceOrderNote({ orderId }: { orderId: string }) {
  const device = await deviceRequestForOrder(orderId);
  if (!device) return null;
  return (
    <p className="mt-4 rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm leading-6 text-emerald-900" data-testid="device-note">
      The app on {device.machineName ?? "your computer"} will finish activating on its own in a few seconds: there is no key to type. Keep the key
      below for your records.
    </p>
  );
}
