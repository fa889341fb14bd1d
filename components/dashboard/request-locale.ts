import { headers } from "next/headers";
import { firstLanguageTag } from "@/lib/money/parse-money";

/**
 * The language the request's browser prefers (its first Accept-Language tag), for a server action reading an amount
 * with parseMoney: it only words the suggestion of a refused amount the way the seller writes numbers.
 */
export async function requestLocale(): Promise<string | undefined> {
  return firstLanguageTag((await headers()).get("accept-language"));
}
