import { PRICING } from "@/lib/pricing";
import { StatCard, StatGrid } from "./stat-card";

export interface SalesTotalsData {
  orders: number;
  gross_display: string;
  fee_display: string;
  net_display: string;
  agent_orders: number;
}

export function SalesTotals({ totals }: { totals: SalesTotalsData }) {
  const agentShare = totals.orders > 0 ? Math.round((totals.agent_orders / totals.orders) * 100) : 0;
  return (
    <StatGrid label="Sales totals, all time">
      <StatCard label="Orders" value={totals.orders.toLocaleString("en-US")} note="Paid, all time" />
      <StatCard label="Gross" value={totals.gross_display} note="What buyers paid" />
      <StatCard label="Fees" value={totals.fee_display} note={`${PRICING.transaction_fee_percent}% platform fee`} />
      <StatCard label="Net" value={totals.net_display} note="What you keep" emphasis />
      <StatCard
        label="By AI agents"
        value={totals.agent_orders.toLocaleString("en-US")}
        note={totals.orders > 0 ? `${agentShare}% of orders` : "Orders placed by agents"}
      />
    </StatGrid>
  );
}
