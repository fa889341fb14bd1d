"use server";

import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, runOperation, textOf } from "@/lib/transports/action";
import { devicePagePath, deviceRefusal } from "@/components/device/device-messages";

// The verification page's three choices, each one operation through runOperation(); the outcome goes back to the
// page as a code in the URL (never text the page would echo), except a started checkout, which the buyer is sent to.

export async function buyForDeviceAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const userCode = textOf(fd, "user_code");
  const outcome = await runOperation<{ url: string }>("startDeviceCheckout", {
    body: { user_code: userCode, buyer_email: textOf(fd, "buyer_email") },
    idempotencyKey: idempotencyKeyOf(fd),
  });
  redirect(outcome.ok ? outcome.output.url : devicePagePath(userCode, { error: deviceRefusal(outcome.problem) }));
}

export async function approveDeviceAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const userCode = textOf(fd, "user_code");
  const outcome = await runOperation("approveDeviceWithLicense", {
    body: { user_code: userCode, license_id: textOf(fd, "license_id") },
    idempotencyKey: idempotencyKeyOf(fd),
  });
  redirect(devicePagePath(userCode, outcome.ok ? { done: "approved" } : { error: deviceRefusal(outcome.problem) }));
}

export async function denyDeviceAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const userCode = textOf(fd, "user_code");
  const outcome = await runOperation("denyDevice", { body: { user_code: userCode } });
  redirect(devicePagePath(userCode, outcome.ok ? { done: "denied" } : { error: deviceRefusal(outcome.problem) }));
}
