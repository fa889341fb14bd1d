/** What the product page's Media section says after one of its actions (?media=<code>); unknown codes say nothing. */
export const MEDIA_NOTICES: Record<string, { tone: "success" | "error"; text: string }> = {
  saved: { tone: "success", text: "Saved." },
  moved: { tone: "success", text: "Moved." },
  deleted: { tone: "success", text: "Deleted." },
  media_alt_required: { tone: "error", text: "An image needs alt text: describe what it shows." },
  invalid_body: { tone: "error", text: "The alt text or caption is too long or holds control characters." },
  failed: { tone: "error", text: "That did not work. Try again." },
};
