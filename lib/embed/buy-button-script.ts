import { createHash } from "node:crypto";

/**
 * The buy button: the one script a seller puts on their own site (`<script src="<BASE_URL>/buy-button.js" defer>`),
 * served by app/buy-button.js/route.ts. Plain JavaScript with no dependencies, so it runs on any page. It acts on
 * links and buttons that carry `data-ilm-product` (and optionally `data-ilm-quantity`, `data-ilm-coupon`): a click
 * opens our checkout (/embed/checkout) in an overlay on the seller's page instead of navigating, which is what the
 * link does without JavaScript (its href, the product page, is the fallback). The overlay is a modal dialog: focus
 * moves into it and stays there (the rest of the page is made inert), Escape or the close button closes it and gives
 * focus back to the button, the page behind does not scroll, and on a phone it fills the screen.
 *
 * The checkout reports to the page with postMessage, addressed to the page's origin only (and only an origin the
 * seller verified can frame it at all); the script accepts messages only from our origin and from its own frame,
 * and re-dispatches them on the button as DOM events: `ilm:purchase` (detail.order_id; never the license key, which
 * only the buyer sees) and `ilm:cancel`. The overlay then closes, unless a listener calls preventDefault().
 * A `data-ilm-link` element (a checkout link) is left to navigate: a link's page is not framed.
 */
const SOURCE = String.raw`(function () {
  "use strict";
  if (window.__ilmBuyButton) return;
  window.__ilmBuyButton = true;
  var BASE = __BASE__;
  var current = null;

  function css(el, rules) {
    for (var k in rules) el.style.setProperty(k, rules[k]);
  }

  function entryUrl(el) {
    var u = new URL(BASE + "/embed/checkout");
    u.searchParams.set("product", el.getAttribute("data-ilm-product"));
    var q = el.getAttribute("data-ilm-quantity");
    if (q) u.searchParams.set("quantity", q);
    var c = el.getAttribute("data-ilm-coupon");
    if (c) u.searchParams.set("coupon", c);
    u.searchParams.set("origin", window.location.origin);
    return u.toString();
  }

  function layout(dialog) {
    var phone = window.matchMedia("(max-width: 640px)").matches;
    css(dialog, phone
      ? { width: "100%", height: "100%", "max-width": "none", "max-height": "none", "border-radius": "0" }
      : { width: "min(480px, calc(100% - 32px))", height: "min(760px, calc(100% - 32px))", "border-radius": "12px" });
  }

  function close() {
    if (!current) return;
    var c = current;
    current = null;
    window.removeEventListener("message", c.onMessage);
    document.removeEventListener("keydown", c.onKey, true);
    window.removeEventListener("resize", c.onResize);
    c.root.remove();
    c.inerted.forEach(function (el) { el.inert = false; });
    document.body.style.overflow = c.overflow;
    if (c.button && typeof c.button.focus === "function") c.button.focus();
  }

  function open(button) {
    close();
    var root = document.createElement("div");
    root.setAttribute("data-ilm-overlay", "");
    css(root, { position: "fixed", inset: "0", "z-index": "2147483647", background: "rgba(15, 23, 42, 0.6)",
      display: "flex", "align-items": "center", "justify-content": "center" });

    var dialog = document.createElement("div");
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("aria-label", "Checkout");
    css(dialog, { position: "relative", background: "#fff", overflow: "hidden", "box-shadow": "0 20px 50px rgba(0, 0, 0, 0.35)",
      display: "flex", "flex-direction": "column" });
    layout(dialog);

    var closeButton = document.createElement("button");
    closeButton.type = "button";
    closeButton.setAttribute("aria-label", "Close checkout");
    closeButton.textContent = "\u00d7";
    css(closeButton, { position: "absolute", top: "8px", right: "8px", width: "44px", height: "44px", border: "0",
      "border-radius": "22px", background: "rgba(255, 255, 255, 0.9)", color: "#0f172a", "font-size": "28px",
      "line-height": "1", cursor: "pointer", "z-index": "1" });
    closeButton.addEventListener("click", function () { cancel(); });

    var frame = document.createElement("iframe");
    frame.title = "Checkout";
    frame.src = entryUrl(button);
    css(frame, { border: "0", width: "100%", height: "100%", flex: "1 1 auto", background: "#fff" });

    // Focus that leaves the dialog's last element (or comes before its first) is sent back inside.
    function sentinel(target) {
      var s = document.createElement("span");
      s.tabIndex = 0;
      s.addEventListener("focus", function () { target().focus(); });
      return s;
    }
    dialog.appendChild(closeButton);
    dialog.appendChild(frame);
    root.appendChild(sentinel(function () { return frame; }));
    root.appendChild(dialog);
    root.appendChild(sentinel(function () { return closeButton; }));
    root.addEventListener("click", function (e) { if (e.target === root) cancel(); });

    var inerted = [];
    Array.prototype.forEach.call(document.body.children, function (el) {
      if (!el.inert) { el.inert = true; inerted.push(el); }
    });
    var overflow = document.body.style.overflow;
    document.body.style.overflow = "hidden";
    document.body.appendChild(root);

    function onMessage(e) {
      if (e.origin !== BASE || e.source !== frame.contentWindow || !e.data || typeof e.data.type !== "string") return;
      if (e.data.type === "ilm:checkout.completed") {
        var detail = { order_id: String(e.data.order_id) };
        if (button.dispatchEvent(new CustomEvent("ilm:purchase", { bubbles: true, cancelable: true, detail: detail }))) close();
      } else if (e.data.type === "ilm:checkout.cancelled") {
        cancel();
      } else if (e.data.type === "ilm:close") {
        cancel();
      }
    }
    function onKey(e) {
      if (e.key === "Escape") { e.preventDefault(); cancel(); }
    }
    function onResize() { layout(dialog); }
    current = { root: root, button: button, inerted: inerted, overflow: overflow, onMessage: onMessage, onKey: onKey, onResize: onResize };
    window.addEventListener("message", onMessage);
    document.addEventListener("keydown", onKey, true);
    window.addEventListener("resize", onResize);
    closeButton.focus();
  }

  function cancel() {
    if (!current) return;
    var button = current.button;
    if (button.dispatchEvent(new CustomEvent("ilm:cancel", { bubbles: true, cancelable: true }))) close();
  }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    var el = e.target && e.target.closest ? e.target.closest("[data-ilm-product]") : null;
    if (!el || !el.getAttribute("data-ilm-product")) return;
    e.preventDefault();
    open(el);
  });
})();
`;

/** The script for a deployment at `baseOrigin` (the origin its messages must come from). */
export function buyButtonScript(baseOrigin: string): string {
  return SOURCE.replace("__BASE__", JSON.stringify(baseOrigin));
}

/** A short hash of the script: `/buy-button.js?v=<it>` may be cached for a year, since the next version has another. */
export function buyButtonVersion(baseOrigin: string): string {
  return createHash("sha256").update(buyButtonScript(baseOrigin)).digest("hex").slice(0, 12);
}
