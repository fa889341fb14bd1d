/**
 * Inside the buy button's overlay the page is the checkout alone: the site's header, footer and skip link (the root
 * layout's) are hidden, since the overlay has its own close button and a second site's navigation inside a seller's
 * page would only lead buyers away. A style element, which the pages' policy allows ('unsafe-inline' styles).
 */
const CSS =
  "body:has([data-ilm-embed]) > header, body:has([data-ilm-embed]) > footer, body:has([data-ilm-embed]) > a[href='#main'] { display: none }";

export function EmbedChrome() {
  return (
    <>
      <style>{CSS}</style>
      <span data-ilm-embed="" hidden />
    </>
  );
}
