import { cache } from "react";
import { requireSeller } from "@/lib/auth/next-session";

/** The signed-in seller for this request, read once and shared by the layout and the page (both must check). */
export const pageSeller = cache(requireSeller);
