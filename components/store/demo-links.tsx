import type { ProductDetails } from "@/lib/marketplace/schemas";
import { focusRing } from "@/components/ui/styles";

type DemoLink = ProductDetails["demo_links"][number];

/** The host a demo link leads to, shown so a buyer knows where they are going before they click. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, "");
  } catch {
    return url;
  }
}

function KindIcon({ kind }: { kind: DemoLink["kind"] }) {
  // Inline SVG: no icon font or image request.
  return kind === "audio" ? (
    <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-5 shrink-0 text-indigo-600">
      <path d="M16 3.2v9.3a2.5 2.5 0 1 1-1.5-2.3V6.1L8 7.6v6.9a2.5 2.5 0 1 1-1.5-2.3V5.4a1 1 0 0 1 .8-1l7.5-1.8a1 1 0 0 1 1.2 1z" />
    </svg>
  ) : (
    <svg aria-hidden="true" viewBox="0 0 20 20" fill="currentColor" className="size-5 shrink-0 text-indigo-600">
      <path d="M3 5.5A2.5 2.5 0 0 1 5.5 3h9A2.5 2.5 0 0 1 17 5.5v9a2.5 2.5 0 0 1-2.5 2.5h-9A2.5 2.5 0 0 1 3 14.5v-9zm5 1.9v5.2a.6.6 0 0 0 .9.5l4.2-2.6a.6.6 0 0 0 0-1L8.9 6.9a.6.6 0 0 0-.9.5z" />
    </svg>
  );
}

/**
 * Video and audio demos as plain links: no embedded player, so nothing from another host loads (or tracks the
 * visitor) with the page; the CSP stays as strict as it is. `nofollow ugc`: the seller wrote the address.
 */
export function DemoLinks({ links }: { links: readonly DemoLink[] }) {
  if (links.length === 0) return null;
  return (
    <ul className="mt-4 grid gap-3 sm:grid-cols-2">
      {links.map((link) => (
        <li key={`${link.kind}:${link.url}`}>
          <a
            href={link.url}
            rel="noopener noreferrer nofollow ugc"
            className={`flex items-start gap-3 rounded-xl border border-slate-200 bg-white p-4 shadow-sm hover:border-indigo-300 hover:bg-indigo-50/40 ${focusRing}`}
          >
            <KindIcon kind={link.kind} />
            <span className="min-w-0">
              <span className="block text-sm font-semibold break-words text-slate-900">{link.title}</span>
              <span className="mt-0.5 block text-xs text-slate-600">
                {link.kind === "audio" ? "Audio demo" : "Video demo"} on {hostOf(link.url)}
                <span className="sr-only"> (opens another site)</span>
              </span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  );
}
