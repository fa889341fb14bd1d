import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { ESLint, type Linter } from "eslint";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";
import config from "../../eslint.config.mjs";

/**
 * `npm run lint` refuses an import that runs up the layers (docs/architecture.md) and an import circle: the layering
 * rules as the project's ESLint configuration declares them (its zones, its import resolver settings), linting
 * fixtures placed (as text) in each layer. Each fixture imports a real module of the project, so the rule resolves it
 * as it would in a real file. Only the layering rule runs: the others need type information a text fixture lacks.
 * Circles are found by dependency-cruiser, run here as `npm run lint:cycles` runs it.
 */

type Block = { rules?: Record<string, unknown>; settings?: Record<string, unknown> };
const root = new URL("../..", import.meta.url).pathname;
const blocks = config as Block[];
const configured = blocks.find((c) => c.rules?.["import/no-restricted-paths"] !== undefined)!.rules!;
const resolverSettings = blocks.find((c) => c.settings?.["import/resolver"])?.settings ?? {};
// The import plugin as the configuration loads it (through eslint-config-next).
const importPlugin = (blocks as Array<{ plugins?: Record<string, ESLint.Plugin> }>).find((c) => c.plugins?.import)!.plugins!.import!;
const linter = (rule: "import/no-restricted-paths") =>
  new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ["**/*.ts", "**/*.tsx"],
        languageOptions: { parser: tseslint.parser },
        plugins: { import: importPlugin },
        settings: resolverSettings,
        rules: { [rule]: configured[rule] as Linter.RuleEntry },
      },
    ],
  });
const layers = linter("import/no-restricted-paths");
// Circles are dependency-cruiser's (.dependency-cruiser.mjs), run as `npm run lint:cycles` runs it; its fixture is
// two real files (tests/fixtures/import-cycle) that import each other, which the script's targets leave out.
const lintCyclesTargets = (JSON.parse(readFileSync(`${root}package.json`, "utf8")) as { scripts: Record<string, string> }).scripts[
  "lint:cycles"
]!.split(" ").slice(3);
function cruise(targets: string[]): { status: number | null; output: string } {
  const run = spawnSync(`${root}node_modules/.bin/depcruise`, ["--config", ".dependency-cruiser.mjs", ...targets], { cwd: root, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function problems(filePath: string, code: string): Promise<Array<{ ruleId: string | null; message: string }>> {
  const [result] = await layers.lintText(code, { filePath: `${root}${filePath}` });
  return result!.messages.map((m) => ({ ruleId: m.ruleId, message: m.message }));
}

const layerRule = (found: Array<{ ruleId: string | null }>) => found.filter((m) => m.ruleId === "import/no-restricted-paths");

describe("the layering rule", () => {
  it.each([
    [
      "the bottom importing a domain",
      "lib/http/fixture.ts",
      'import { issueLicense } from "../licensing/issue-license.ts";\nexport const x = issueLicense;\n',
    ],
    ["the bottom importing the registry", "lib/money/fixture.ts", 'import { execute } from "../operations/execute.ts";\nexport const x = execute;\n'],
    [
      "a domain importing the registry",
      "lib/licensing/fixture.ts",
      'import { operations } from "../operations/index.ts";\nexport const x = operations;\n',
    ],
    [
      "a domain importing a transport",
      "lib/checkout/fixture.ts",
      'import { frontDoor } from "../transports/front.ts";\nexport const x = frontDoor;\n',
    ],
    [
      "a domain importing a component",
      "lib/refunds/fixture.ts",
      'import { formText } from "../../components/dashboard/form-state.ts";\nexport const x = formText;\n',
    ],
    [
      "the registry importing a transport",
      "lib/operations/fixture.ts",
      'import { restRoutes } from "../transports/rest.ts";\nexport const x = restRoutes;\n',
    ],
    [
      "a document importing a transport",
      "lib/agents/fixture.ts",
      'import { mcpEndpoint } from "../transports/mcp-endpoint.ts";\nexport const x = mcpEndpoint;\n',
    ],
    [
      "a transport importing a page's code",
      "lib/transports/fixture.ts",
      'import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";\nexport const x = sellerRefusal;\n',
    ],
  ])("refuses %s", async (_what, file, code) => {
    const found = layerRule(await problems(file, code));
    expect(found, JSON.stringify(found)).toHaveLength(1);
  });

  it.each([
    [
      "a domain importing the bottom and another domain",
      "lib/checkout/fixture.ts",
      'import { AppError } from "../http/errors.ts";\nimport { issueLicense } from "../licensing/issue-license.ts";\nexport const x = [AppError, issueLicense];\n',
    ],
    [
      "the registry importing a domain",
      "lib/operations/fixture.ts",
      'import { issueLicense } from "../licensing/issue-license.ts";\nexport const x = issueLicense;\n',
    ],
    [
      "a transport importing the registry",
      "lib/transports/fixture.ts",
      'import { execute } from "../operations/execute.ts";\nexport const x = execute;\n',
    ],
    ["a page importing a transport", "app/fixture.ts", 'import { runOperation } from "@/lib/transports/action";\nexport const x = runOperation;\n'],
  ])("allows %s", async (_what, file, code) => {
    expect(layerRule(await problems(file, code))).toEqual([]);
  });

  it("refuses an import circle, and finds none in the project's own code", { timeout: 120_000 }, () => {
    const fixture = cruise(["tests/fixtures/import-cycle"]);
    expect(fixture.status).toBe(1);
    expect(fixture.output).toMatch(/no-circular: tests\/fixtures\/import-cycle\/a\.ts →\s+tests\/fixtures\/import-cycle\/b\.ts/);
    // What `npm run lint:cycles` cruises: the registry's domains list is read by the tools, whose documents the index
    // joins (a circle once, none now).
    const project = cruise(lintCyclesTargets);
    expect(project.output).toMatch(/no dependency violations found \((\d{3,}) modules/);
    expect(project.status).toBe(0);
  });
});
