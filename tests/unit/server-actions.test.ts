import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { operationById } from "@/lib/operations/index";

/**
 * Every server action is an adapter over the operation registry (lib/transports/action.ts): it turns its form into an
 * operation's input and calls runOperation(), which runs execute() with the operation's limits, auth, idempotency and
 * body cap. This walks every "use server" module in the app and fails for an export that reaches around it: one that
 * never calls runOperation (itself or through a helper of its module), a module that imports domain code, or an
 * action that takes arguments a browser could not have sent without a 400.
 */

const ROOT = join(import.meta.dirname, "..", "..");

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx)$/.test(name)) yield path;
  }
}

const hasUseServer = (source: ts.SourceFile) =>
  source.statements.some((s) => ts.isExpressionStatement(s) && ts.isStringLiteral(s.expression) && s.expression.text === "use server");

const modules = ["app", "components", "lib"]
  .flatMap((d) => [...sourceFiles(join(ROOT, d))])
  .flatMap((path) => {
    const text = readFileSync(path, "utf8");
    if (!text.includes("use server")) return [];
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    return hasUseServer(source) ? [{ path, rel: relative(ROOT, path), source }] : [];
  });

/**
 * What an action module may import for its values: Next's cache and navigation, the action transport, the one money
 * parser, URL paths, the forms' own state and wording (components, the pages' `_lib` outcome helpers and messages).
 * Domain code (lib/<domain>, the database, sessions) is reached only through an operation. Type-only imports are free.
 */
const ALLOWED = [
  /^next\/(cache|navigation)$/,
  /^@\/lib\/transports\/action$/,
  /^@\/lib\/money\//,
  /^@\/lib\/urls$/,
  /^@\/components\//,
  /^@\/app\/.*\/_lib\/action-outcome$/,
  /^\.\/messages$/,
  /(^|\/)_lib\/action-outcome$/,
];

function valueImports(source: ts.SourceFile): string[] {
  const out: string[] = [];
  for (const s of source.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier)) continue;
    const clause = s.importClause;
    if (clause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
    const named = clause?.namedBindings;
    const onlyTypes = !clause?.name && named && ts.isNamedImports(named) && named.elements.every((e) => e.isTypeOnly);
    if (!onlyTypes) out.push(s.moduleSpecifier.text);
  }
  return out;
}

/** The module's functions by name, and which names each one's body calls. */
function callGraph(source: ts.SourceFile): { exported: string[]; calls: Map<string, Set<string>> } {
  const calls = new Map<string, Set<string>>();
  const exported: string[] = [];
  const collect = (name: string, body: ts.Node) => {
    const set = new Set<string>();
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) set.add(n.expression.text);
      ts.forEachChild(n, visit);
    };
    visit(body);
    calls.set(name, set);
  };
  for (const s of source.statements) {
    const isExported = ts.canHaveModifiers(s) && (ts.getModifiers(s) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isFunctionDeclaration(s) && s.name && s.body) {
      collect(s.name.text, s.body);
      if (isExported) exported.push(s.name.text);
    } else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) {
        if (!ts.isIdentifier(d.name) || !d.initializer) continue;
        collect(d.name.text, d.initializer);
        if (isExported) exported.push(d.name.text);
      }
    }
  }
  return { exported, calls };
}

function reachesRunOperation(name: string, calls: Map<string, Set<string>>, seen = new Set<string>()): boolean {
  if (seen.has(name)) return false;
  seen.add(name);
  const called = calls.get(name);
  if (!called) return false;
  if (called.has("runOperation")) return true;
  return [...called].some((c) => reachesRunOperation(c, calls, seen));
}

/** The operation ids an action module names in its runOperation calls. */
function operationIds(source: ts.SourceFile): string[] {
  const ids: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "runOperation") {
      const first = n.arguments[0];
      if (first && ts.isStringLiteralLike(first)) ids.push(first.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return ids;
}

describe("server actions", () => {
  it("finds the app's action modules", () => {
    expect(modules.length).toBeGreaterThanOrEqual(16);
  });

  describe.each(modules.map((m) => [m.rel, m] as const))("%s", (_rel, m) => {
    it("imports no domain code", () => {
      for (const spec of valueImports(m.source))
        expect(
          ALLOWED.some((re) => re.test(spec)),
          `${m.rel} imports ${spec}`,
        ).toBe(true);
    });

    it("runs every export through the registry", () => {
      const { exported, calls } = callGraph(m.source);
      expect(exported.length).toBeGreaterThan(0);
      for (const name of exported) expect(reachesRunOperation(name, calls), `${name} does not call runOperation`).toBe(true);
      for (const id of operationIds(m.source)) expect(() => operationById(id), `${m.rel} names ${id}`).not.toThrow();
    });

    it("answers arguments a browser could not have sent with a 400", async () => {
      const mod = (await import(/* @vite-ignore */ m.path)) as Record<string, unknown>;
      for (const [name, fn] of Object.entries(mod)) {
        if (typeof fn !== "function" || fn.length === 0) continue;
        for (const args of [[], Array.from({ length: fn.length }, () => 42), Array.from({ length: fn.length }, () => ({ toString: () => "x" }))]) {
          const outcome = await (fn as (...a: unknown[]) => Promise<unknown>)(...args).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(outcome, `${name}(${args.map((a) => JSON.stringify(a)).join(", ")})`).toMatchObject({
            status: 400,
            code: "invalid_action_arguments",
          });
        }
      }
    });
  });
});

/**
 * The pages' forms that post to a route of their own (sign-in and out, the Buy button, test mode's Pay and Cancel) and
 * the routes Stripe sends a seller back to: each write is an operation run with runOperationFor(), never a domain
 * function called around execute(). The transports (MCP, A2A) and the registry's own REST routes are the other doors.
 */
const TRANSPORT_ROUTES = new Set(["app/api/a2a/route.ts", "app/api/mcp/route.ts"]);
const routeFiles = [...sourceFiles(join(ROOT, "app"))]
  .filter((p) => p.endsWith("/route.ts"))
  .map((path) => ({ path, rel: relative(ROOT, path), text: readFileSync(path, "utf8") }));
const writingRoutes = routeFiles.filter(
  (r) =>
    !TRANSPORT_ROUTES.has(r.rel) &&
    !r.text.includes("restRoutes(") &&
    (/^\s*(POST|PUT|PATCH|DELETE): route\(/m.test(r.text) || /runOperationFor|\/lib\/payouts\//.test(r.text)),
);

describe("routes of the pages' own forms", () => {
  it("finds them", () => {
    expect(writingRoutes.map((r) => r.rel).sort()).toEqual(
      expect.arrayContaining([
        "app/auth/sign-in/route.ts",
        "app/auth/verify/confirm/route.ts",
        "app/auth/sign-out/route.ts",
        "app/checkout/start/route.ts",
        "app/trials/start/route.ts",
        "app/checkout/[session_id]/pay/route.ts",
        "app/checkout/[session_id]/cancel/route.ts",
        "app/(dashboard)/dashboard/(app)/payouts/return/route.ts",
        "app/(dashboard)/dashboard/(app)/payouts/refresh/route.ts",
      ]),
    );
  });

  it.each(writingRoutes.map((r) => [r.rel, r] as const))("%s writes through an operation only", (_rel, r) => {
    const source = ts.createSourceFile(r.path, r.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const ids: string[] = [];
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "runOperationFor") {
        const id = n.arguments[1];
        if (id && ts.isStringLiteralLike(id)) ids.push(id.text);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
    expect(ids.length, `${r.rel} calls no operation`).toBeGreaterThan(0);
    for (const id of ids) expect(() => operationById(id), `${r.rel} names ${id}`).not.toThrow();
    // What it may import for values: the transports, the request's form and cookie helpers, Next's navigation, URL
    // paths, the database for a read before the write (payouts' refresh), and the checks of its own form.
    for (const spec of valueImports(source))
      expect(
        /^(zod|next\/navigation|@\/lib\/transports\/|@\/lib\/urls$|@\/lib\/auth\/(cookies|forms|link-binding|next-session|sign-in)$|@\/lib\/checkout\/(form|schemas|buy-errors|buy-refill)$|@\/lib\/marketplace\/schemas$|@\/lib\/http\/errors$|@\/lib\/db$|@\/lib\/payouts\/requirements$)/.test(
          spec,
        ),
        `${r.rel} imports ${spec}`,
      ).toBe(true);
  });
});
