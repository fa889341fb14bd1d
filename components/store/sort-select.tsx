"use client";

/** The sort order's select: choosing an order submits its form, so no separate button is needed with JavaScript. */
export function SortSelect({
  defaultValue,
  options,
  className,
}: {
  defaultValue: string;
  options: { value: string; label: string }[];
  className: string;
}) {
  return (
    <select id="sort" name="sort" defaultValue={defaultValue} onChange={(e) => e.currentTarget.form?.requestSubmit()} className={className}>
      {options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}
