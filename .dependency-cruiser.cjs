// The layering, enforced (npm run lint runs it): lib/ is the engine and knows nothing of React or
// Next; components/ reach data only through server actions and the types lib/ exports; db/ owns
// SQL and knows nothing of the UI; nothing imports in a circle.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Import cycles make load order matter and hide the layering (type-only imports load nothing).",
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    {
      name: "lib-is-framework-free",
      severity: "error",
      comment: "lib/ is the engine: the CLI, the hook and tests load it without React or Next.",
      from: { path: "^lib/" },
      to: { path: "(^|/)node_modules/(react|react-dom|next|recharts)/" },
    },
    {
      name: "lib-imports-no-ui",
      severity: "error",
      from: { path: "^(lib|db)/" },
      to: { path: "^(app|components)/" },
    },
    {
      name: "components-import-no-db",
      severity: "error",
      comment: "Components get data from pages and server actions; domain types live in lib/.",
      from: { path: "^components/" },
      to: { path: "^db/" },
    },
    {
      name: "db-imports-no-ui",
      severity: "error",
      from: { path: "^db/" },
      to: { path: "^(app|components|criteria)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(\\.next|dist|test/hostile/corpus)" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
