// Import circles, checked by dependency-cruiser over the TypeScript import graph (type-only imports included: a
// circle of types is still a circle in the picture). `npm run lint:cycles` runs it; the layering itself (which layer
// may import which) is ESLint's import/no-restricted-paths in eslint.config.mjs. tests/unit/layers.test.ts shows the
// check fails on a circle (tests/fixtures/import-cycle) and passes on the project.
/** @type {import('dependency-cruiser').IConfiguration} */
const configuration = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A module must not reach itself through its imports (docs/architecture.md: layers with no circles).",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: ["^node_modules", "^\\.next", "^lib/generated", "^prisma/generated"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
};

export default configuration;
