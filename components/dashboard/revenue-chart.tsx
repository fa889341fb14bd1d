import { focusRing } from "@/components/ui/styles";
import { formatCents, formatDay, formatShortDay } from "./format";

export interface DailyRevenue {
  date: string;
  net_cents: number;
  orders: number;
}

/** The axis top: the day's best rounded up to 1, 2 or 5 × a power of ten (at least 10.00 of the currency). */
function axisTop(maxCents: number): number {
  if (maxCents <= 1000) return 1000;
  const magnitude = 10 ** Math.floor(Math.log10(maxCents));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= maxCents) return step * magnitude;
  return 10 * magnitude;
}

/**
 * Net revenue per day in one currency as a server-rendered SVG bar chart. Screen readers get a title and a summary;
 * everyone can open the same numbers as a table.
 */
function RevenueChart({ daily, currency, id = "revenue" }: { daily: DailyRevenue[]; currency: string; id?: string }) {
  const money = (minor: number) => formatCents(minor, currency);
  const code = currency.toUpperCase();
  const n = daily.length;
  const firstDay = daily[0];
  const lastDay = daily[n - 1];
  const middleDay = daily[Math.floor((n - 1) / 2)];
  if (!firstDay || !lastDay || !middleDay) return null;
  const total = daily.reduce((s, d) => s + d.net_cents, 0);
  const orders = daily.reduce((s, d) => s + d.orders, 0);
  const best = daily.reduce((b, d) => (d.net_cents > b.net_cents ? d : b), firstDay);
  const top = axisTop(best.net_cents);
  const first = firstDay.date;
  const last = lastDay.date;
  const middle = middleDay.date;
  const slot = 10;
  const summary =
    orders === 0
      ? `No sales between ${formatDay(first)} and ${formatDay(last)}.`
      : `${money(total)} net from ${orders} ${orders === 1 ? "order" : "orders"} between ${formatDay(first)} and ${formatDay(last)}.${
          // A best day is one that brought money in: with free orders or refunds only, no day is named.
          best.net_cents > 0 ? ` Best day: ${formatDay(best.date)} with ${money(best.net_cents)}.` : ""
        }`;

  return (
    <figure className="min-w-0">
      <div className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3">
        <div aria-hidden="true" className="flex h-44 flex-col justify-between text-right text-xs text-slate-600 tabular-nums sm:h-52">
          <span className="-translate-y-1/2">{money(top)}</span>
          <span>{money(top / 2)}</span>
          <span className="translate-y-1/2">{money(0)}</span>
        </div>
        <svg
          role="img"
          aria-labelledby={`${id}-title ${id}-desc`}
          viewBox={`0 0 ${n * slot} 100`}
          preserveAspectRatio="none"
          className="h-44 w-full overflow-visible sm:h-52"
        >
          <title id={`${id}-title`}>{`Net revenue per day in ${code}, last ${n} days`}</title>
          <desc id={`${id}-desc`}>{summary}</desc>
          {[0, 50, 100].map((y) => (
            <line
              key={y}
              x1="0"
              x2={n * slot}
              y1={y}
              y2={y}
              vectorEffect="non-scaling-stroke"
              className={y === 100 ? "stroke-slate-400" : "stroke-slate-200"}
              strokeWidth="1"
            />
          ))}
          {daily.map((d, i) => {
            const h = d.net_cents > 0 ? Math.max(1.5, (d.net_cents / top) * 100) : 0;
            return h > 0 ? (
              <rect
                key={d.date}
                x={i * slot + 1.5}
                y={100 - h}
                width={slot - 3}
                height={h}
                rx="0.8"
                className="fill-indigo-500 hover:fill-indigo-700"
              >
                <title>{`${formatDay(d.date)}: ${money(d.net_cents)} net, ${d.orders} ${d.orders === 1 ? "order" : "orders"}`}</title>
              </rect>
            ) : null;
          })}
        </svg>
        <div aria-hidden="true" className="col-start-2 mt-2 flex justify-between text-xs text-slate-600">
          <span>{formatShortDay(first)}</span>
          <span>{formatShortDay(middle)}</span>
          <span>{formatShortDay(last)}</span>
        </div>
      </div>
      <figcaption className="mt-3 text-sm text-slate-700">{summary}</figcaption>
      <details className="group mt-3 text-sm">
        <summary className={`inline-flex cursor-pointer items-center gap-1 rounded-sm font-medium text-indigo-700 hover:underline ${focusRing}`}>
          <svg viewBox="0 0 20 20" aria-hidden="true" className="size-4 fill-current transition-transform group-open:rotate-90">
            <path d="M7.2 14.8a.75.75 0 0 1 0-1.06L10.94 10 7.2 6.26a.75.75 0 1 1 1.06-1.06l4.27 4.27a.75.75 0 0 1 0 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0Z" />
          </svg>
          Show the numbers as a table
        </summary>
        <div
          className="mt-3 max-h-80 overflow-y-auto rounded-xl border border-slate-200"
          tabIndex={0}
          role="region"
          aria-label={`Net revenue per day in ${code}`}
        >
          <table className="w-full text-left text-sm">
            <caption className="sr-only">{`Net revenue per day in ${code}`}</caption>
            <thead className="sticky top-0 bg-slate-50">
              <tr>
                <th scope="col" className="px-3 py-2 font-semibold text-slate-700">
                  Day
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold text-slate-700">
                  Orders
                </th>
                <th scope="col" className="px-3 py-2 text-right font-semibold text-slate-700">
                  Net
                </th>
              </tr>
            </thead>
            <tbody>
              {daily.map((d) => (
                <tr key={d.date} className="border-t border-slate-100">
                  <th scope="row" className="px-3 py-1.5 font-normal text-slate-800">
                    <time dateTime={d.date}>{formatDay(d.date)}</time>
                  </th>
                  <td className="px-3 py-1.5 text-right tabular-nums">{d.orders}</td>
                  <td className="px-3 py-1.5 text-right tabular-nums">{money(d.net_cents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

/**
 * One chart per currency the seller sells in (amounts in different currencies are never added into one bar), each
 * headed by its code when there is more than one.
 */
export function RevenueCharts({ currencies, id }: { currencies: { currency: string; daily: DailyRevenue[] }[]; id: string }) {
  if (currencies.length === 1) {
    const [only] = currencies;
    return only ? <RevenueChart daily={only.daily} currency={only.currency} id={id} /> : null;
  }
  return (
    <div className="space-y-8">
      {currencies.map((c) => (
        <div key={c.currency}>
          <h3 className="mb-3 text-sm font-semibold text-slate-900">In {c.currency.toUpperCase()}</h3>
          <RevenueChart daily={c.daily} currency={c.currency} id={`${id}-${c.currency}`} />
        </div>
      ))}
    </div>
  );
}
