/** Which database engine a DATABASE_URL names. The scheme decides; there is no other switch. */
export type Engine = "sqlite" | "postgresql";

export function engineOf(url: string): Engine {
  if (url.startsWith("file:")) return "sqlite";
  if (/^postgres(ql)?:\/\//.test(url)) return "postgresql";
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL); got "${url.split(":")[0]}:…"`);
}

/** The file path of a SQLite URL (`file:./data/x.db`, `file:/abs/x.db`), without query options. */
export function sqlitePath(url: string): string {
  return (
    url
      .slice("file:".length)
      .replace(/^\/\/(?=\/)/, "")
      .split("?", 1)[0] ?? ""
  );
}
