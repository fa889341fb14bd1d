// ESLint flat config: Next's core-web-vitals rules, typescript-eslint's strictest type-checked set, Prettier last so
// no stylistic rule fights the formatter. `npm run lint` runs it with --max-warnings 0, so a warning fails CI too.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

/**
 * The layers (docs/architecture.md), from the bottom: what every layer needs (lib/http's errors, problems, input,
 * limits and idempotency; money, settings, the database), the product's domains (every other folder of lib/, so a
 * new one is a domain), the operation registry with the documents derived from it, the transports, and the process
 * and pages. A file imports its own layer and those below it, never one above: `import/no-restricted-paths` refuses
 * an upward import (tests/unit/layers.test.ts lints a fixture of each kind). Circles are dependency-cruiser's to find
 * (.dependency-cruiser.mjs, `npm run lint:cycles`): import/no-cycle walked the whole graph from every file and took
 * minutes.
 */
const BOTTOM = [
  "http",
  "money",
  "db",
  "generated",
  "cache",
  "storage",
  "identity",
  "server",
  "env.ts",
  "db.ts",
  "format.ts",
  "pricing.ts",
  "urls.ts",
  "versions.ts",
];
const REGISTRY = ["operations", "agents", "api"];
const TRANSPORTS = ["transports"];
const DOMAINS = readdirSync(new URL("lib", import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory() && ![...BOTTOM, ...REGISTRY, ...TRANSPORTS].includes(d.name))
  .map((d) => d.name);
const lib = (names) => names.map((n) => `./lib/${n}`);
const TOP = ["./app", "./components", "./server.ts"];
const zone = (target, from, message, except) => ({ target, from, message, ...(except ? { except } : {}) });
export const LAYER_ZONES = [
  ...[...lib(DOMAINS), ...lib(REGISTRY), ...lib(TRANSPORTS), ...TOP].map((from) =>
    zone(lib(BOTTOM), from, "lib/http, lib/money, the settings and the database are the bottom layer: they import nothing above them."),
  ),
  ...[...lib(["operations", "api"]), ...lib(TRANSPORTS), ...TOP].map((from) =>
    zone(
      [...lib(DOMAINS), "./lib/agents/devtools"],
      from,
      "A domain imports only the bottom layer and other domains, never the registry, a transport or a page.",
    ),
  ),
  zone([...lib(DOMAINS), "./lib/agents/devtools"], "./lib/agents", "A domain never imports the documents derived from the registry.", ["./devtools"]),
  ...[...lib(TRANSPORTS), ...TOP].map((from) => zone(lib(REGISTRY), from, "The registry never imports a transport or a page.")),
  ...TOP.map((from) => zone(lib(TRANSPORTS), from, "A transport never imports a page or a component.")),
];

export default defineConfig(
  {
    ignores: [
      ".next/**",
      "dist/**",
      "node_modules/**",
      "lib/generated/**",
      "prisma/generated/**",
      "sdks/**", // other languages' SDKs, each with its own tooling
      "test-results/**",
      "playwright-report/**",
      "e2e/artifacts/**",
      "coverage/**",
      "data/**",
      "public/**",
      "tests/fixtures/import-cycle/**", // an import circle on purpose: tests/unit/layers.test.ts cruises it
      "next-env.d.ts",
    ],
  },
  js.configs.recommended,
  ...nextCoreWebVitals,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Numbers and booleans in template literals are intentional (counts, flags in log lines); objects, null and
      // undefined still get flagged.
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true }],
      // `onClick={() => setOpen(false)}` is idiomatic; returning void from a statement-like arrow is not a bug.
      "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
      // React 19 form `action={serverAction}` takes async functions by design; everything else is still checked.
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      // `_`-prefixed names mark parameters whose signature is imposed (route handlers, callbacks).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_" },
      ],
      // Type-only imports stay explicit so the bundler can drop them (verbatim with isolatedModules).
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-import-type-side-effects": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-console": "off",
      // Next's defaults leave these as warnings; with --max-warnings 0 they are errors anyway, make it explicit.
      "import/no-anonymous-default-export": "error",
      "react-hooks/exhaustive-deps": "error",
      "import/no-restricted-paths": ["error", { zones: LAYER_ZONES }],
    },
  },
  {
    // Plain JS/MJS (scripts, postcss config) is outside tsconfig: lint it without type information.
    files: ["**/*.{js,mjs,cjs}"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { parserOptions: { projectService: false } },
  },
  {
    // Tests assert the wire format of HTTP/MCP responses, so response bodies are deliberately untyped JSON
    // (`Reply<any>`, `await res.json()`): typing them would restate the schemas the tests exist to check. The
    // `no-unsafe-*` family is relaxed here only; production code keeps it. A non-null assertion on a fixture is how a
    // test says "this exists", and a crash is the right failure when it does not.
    files: ["tests/**/*.ts", "e2e/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      // Playwright fixtures hand their value over with a callback named `use`, which is not React's `use`.
      "react-hooks/rules-of-hooks": "off",
    },
  },
  prettier,
);
