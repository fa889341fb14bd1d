// ESLint flat config: Next's core-web-vitals rules, typescript-eslint's strictest type-checked set, Prettier last so
// no stylistic rule fights the formatter. `npm run lint` runs it with --max-warnings 0, so a warning fails CI too.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default defineConfig(
  {
    ignores: [
      ".next/**",
      "dist/**",
      "node_modules/**",
      "lib/generated/**",
      "prisma/generated/**",
      "integrations/**", // other languages' SDKs, each with its own tooling
      "test-results/**",
      "playwright-report/**",
      "e2e/artifacts/**",
      "coverage/**",
      "data/**",
      "public/**",
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
