import { randomInt } from "node:crypto";
import { KEY_ALPHABET } from "../../licensing/keys.ts";

/**
 * Test license keys: the format of real keys (`XXXX-XXXX-XXXX-XXXX`), guaranteed never to be one. Real keys come from
 * Crockford's alphabet, which has no `U`; every test key ends in `U`, so `/validate` answers `NOT_FOUND` for it.
 */

/** The character no real key contains, which ends every test key. */
export const TEST_KEY_MARKER = "U";

export interface TestLicenseKey {
  license_key: string;
  test: true;
  note: string;
}

const PREFIX_PATTERN = /^[A-Za-z0-9]{2,4}$/;

export function generateTestLicenseKey(args: { prefix?: string } | null = {}): TestLicenseKey {
  const prefix = args?.prefix;
  if (prefix !== undefined && (typeof prefix !== "string" || !PREFIX_PATTERN.test(prefix))) {
    throw new Error("prefix must be 2 to 4 letters or digits (for example TEST)");
  }
  let chars = (prefix ?? "").toUpperCase();
  while (chars.length < 15) chars += KEY_ALPHABET.charAt(randomInt(KEY_ALPHABET.length));
  chars += TEST_KEY_MARKER;
  const groups = chars.match(/.{4}/g);
  if (!groups) throw new Error("test key has no four-character groups");
  const license_key = groups.join("-");
  return {
    license_key,
    test: true,
    note: `Test key: it has the format of a real license key but can never be one (it ends in "${TEST_KEY_MARKER}", a letter real keys never contain), so POST /validate and POST /activate answer code NOT_FOUND for it. Use it to test your app's "key not found" path; it never validates as a real license.`,
  };
}
