"use client";

import { useFormStatus } from "react-dom";
import { buttonSecondary } from "@/components/ui/styles";

/** The submit button of a machine's release form: says so while the release is under way, and cannot be sent twice. */
export function ReleaseButton({ machine }: { machine: string }) {
  const { pending } = useFormStatus();
  return (
    <button type="submit" disabled={pending} aria-disabled={pending} className={`${buttonSecondary} w-full px-3 py-2 sm:w-auto`}>
      {pending ? "Releasing…" : "Release this machine"}
      <span className="sr-only"> {machine}</span>
    </button>
  );
}
