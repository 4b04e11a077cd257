/**
 * Which way imports may run (docs/architecture.md, "Layers"). From the top:
 *   src/server.ts, src/app.tsx, scripts/    the process and the composition
 *   src/security/, src/demo/                the request's checks and headers; the demo data
 *   src/web/<feature>/                      the HTTP edge: each feature's plugin, pages, forms, API
 *   src/context.ts                          the request's context (session, render, access options)
 *   views/                                  screens (server JSX) and their components
 *   src/shell/                              the page shell: render, the view every screen gets
 *   src/texts.ts                            the catalogue, joined from every feature's texts
 *   src/<feature>/                          the features, in the rank below: each imports lower ones only
 *   src/deps.ts, src/ports/, src/jobs/,     what every feature is handed; the live channel; the
 *   src/events.ts, src/live/,               process's operations (secrets, backup, start-up)
 *   src/operations/, src/config.ts
 *   db/                                     the data model and its client
 *   lib/, shared/                           helpers and rules that know no app
 * islands/ (client code) imports islands/ and shared/ only.
 */
const FEATURES_BOTTOM_UP = ["uploads", "email", "auth", "profiles", "reviews", "payments", "activities", "bookings", "conversations", "reports", "notifications", "availability", "saved", "account"];
const feature = (f) => `^src/${f}/`;
const EDGE = ["^src/web/", "^src/security/", "^src/demo/", "^src/context\\.ts$", "^src/shell/", "^src/app\\.tsx$", "^src/server\\.ts$", "^src/texts\\.ts$", "^views/", "^scripts/"];
const FEATURES = FEATURES_BOTTOM_UP.map(feature);

const rank = FEATURES_BOTTOM_UP.slice(0, -1).map((f, i) => ({
  name: `feature-rank-${f}`,
  comment: `${f} sits below ${FEATURES_BOTTOM_UP.slice(i + 1).join(", ")}: it imports none of them (docs/architecture.md).`,
  severity: "error",
  from: { path: feature(f) },
  to: { path: FEATURES_BOTTOM_UP.slice(i + 1).map(feature) },
}));

module.exports = {
  forbidden: [
    { name: "no-circular", comment: "No module imports one that imports it back.", severity: "error", from: {}, to: { circular: true } },
    {
      name: "lib-knows-no-app",
      comment: "lib/ holds helpers that know no feature, no screen and no database.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(src|db|views|islands)/" },
    },
    { name: "shared-knows-nothing", comment: "shared/ is pure rules for the server, the screens and the islands.", severity: "error", from: { path: "^shared/" }, to: { path: "^(src|db|lib|views|islands)/" } },
    { name: "db-knows-no-app", comment: "db/ is the data model and its client: it imports nothing from src/.", severity: "error", from: { path: "^db/" }, to: { path: "^(src|views|islands)/" } },
    {
      name: "features-know-no-edge",
      comment: "A feature's rules, services and queries know no route, screen, request context or catalogue: the edge imports them, not the other way.",
      severity: "error",
      from: { path: FEATURES },
      to: { path: EDGE },
    },
    {
      name: "core-knows-no-feature",
      comment: "Deps, ports, jobs and events are handed to the features: they import none.",
      severity: "error",
      from: { path: ["^src/deps\\.ts$", "^src/jobs/", "^src/events\\.ts$", "^src/shutdown\\.ts$", "^src/config\\.ts$", "^src/ports/", "^src/live/", "^src/operations/"] },
      to: { path: [...FEATURES, ...EDGE] },
    },
    { name: "views-know-no-edge", comment: "Screens are drawn from what the edge hands them.", severity: "error", from: { path: "^views/" }, to: { path: "^(src/web/|src/context\\.ts|src/app\\.tsx|src/server\\.ts)" } },
    { name: "islands-are-client-code", comment: "Islands run in the browser: they import islands/ and shared/ only.", severity: "error", from: { path: "^islands/" }, to: { path: "^(src|db|lib|views)/" } },
    ...rank,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|build|dist)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
};
