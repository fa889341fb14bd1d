/** Small helpers for the Markdown the developer tools return. */

/** A fenced code block whose fence is longer than any backtick run inside the code, so the code cannot end it. */
export function codeBlock(lang: string, code: string): string {
  const longest = Math.max(0, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${code.replace(/\n+$/, "")}\n${fence}`;
}

/** A file: its path in bold code, then its contents in a fenced block. */
export function fileBlock(path: string, lang: string, code: string): string {
  return `**\`${path}\`**\n\n${codeBlock(lang, code)}`;
}

/**
 * Fills `@@NAME@@` placeholders in a code template. Every placeholder must have a value and every value must
 * have been checked by the caller; a placeholder left over is a bug in the template, so it throws.
 */
export function fill(template: string, values: Record<string, string | number>): string {
  const out = template.replace(/@@([A-Z_]+)@@/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template placeholder ${whole} has no value`);
    return String(value);
  });
  return out;
}

export function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}
