/**
 * Stripe reports what an account still needs as field paths (`requirements.currently_due`: "external_account",
 * "individual.verification.document", "person_1Abc.dob.day", …). Sellers get them in plain words, one line per kind
 * of thing to do; several paths that mean the same task (day, month and year of a birth date) become one line.
 */
const RULES: Array<[RegExp, string]> = [
  [/^deauthorized$/, "Connect again: the account was disconnected from this marketplace"],
  [/^external_account/, "A bank account for your payouts"],
  [/^tos_acceptance\./, "Accept Stripe's terms of service"],
  [/^business_type$/, "Say what kind of business you are (individual or company)"],
  [/^business_profile\./, "Details of your business: what you sell and your website"],
  [/(^|\.)verification\.(additional_)?document/, "An identity document"],
  [/^(individual|representative|person_\w+)\.dob\./, "Your date of birth"],
  [/^(individual|representative|person_\w+)\.(first_name|last_name)/, "Your legal name"],
  [/^(individual|representative|person_\w+)\.(address|registered_address)\./, "Your home address"],
  [/^(individual|representative|person_\w+)\.(ssn_last_4|id_number)/, "Your tax or national ID number"],
  [/^(individual|representative|person_\w+)\.(email|phone)/, "Your e-mail address and phone number"],
  [/^(individual|representative|person_\w+)\.relationship\./, "Your role in the business"],
  [/^company\.address\./, "Your company's address"],
  [/^company\.(tax_id|vat_id|registration_number)/, "Your company's tax or registration number"],
  [/^company\./, "Details of your company"],
  [/^(owners|directors|executives|representative|person_\w+)/, "Details of the people who own or run the business"],
  [/^settings\./, "Account settings (such as the name on statements)"],
];

/** One plain line per task, in the order Stripe listed them, without repeats. */
export function requirementsInWords(due: readonly string[]): string[] {
  const out: string[] = [];
  for (const code of due) {
    const words = RULES.find(([re]) => re.test(code))?.[1] ?? `Provide: ${code.replace(/[._]/g, " ")}`;
    if (!out.includes(words)) out.push(words);
  }
  return out;
}

/** The requirements column as stored (JSON), as a list of strings whatever was written there. */
export function dueList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((r): r is string => typeof r === "string") : [];
}
