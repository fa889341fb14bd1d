import { readForm } from "../checkout/form.ts";
import { AppError } from "../http/errors.ts";
import { sameOrigin } from "./cookies.ts";

/** A form post from one of our own pages. */
export async function consumeForm(request: Request): Promise<Record<string, string>> {
  if (!sameOrigin(request)) throw new AppError("cross_site_form", 403, "This form can only be sent from this site.");
  return readForm(request);
}
