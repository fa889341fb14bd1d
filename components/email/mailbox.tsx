import { Badge } from "@/components/ui/badge";

/** A time as the dev mailbox shows it: unambiguous, in UTC (the server renders it, not the reader's browser). */
export function formatTime(value: Date | string): string {
  const d = typeof value === "string" ? new Date(value) : value;
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

export function StatusBadge({ status }: { status: string }) {
  if (status === "sent") return <Badge tone="success">sent</Badge>;
  if (status === "pending") return <Badge tone="accent">pending</Badge>;
  return <Badge>{status}</Badge>;
}
