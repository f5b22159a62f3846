/**
 * Import rules of the layout (docs/architecture.md "Server layers"), checked in CI by
 * `npm run check:imports`. Violations that predate the check are listed in
 * .dependency-cruiser-known-violations.json and tolerated (`--ignore-known`); a new one fails. The
 * list only shrinks: regenerate it with `npm run check:imports:baseline` after removing some.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Folders and files import one way; a cycle means two modules can no longer be understood apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'web-not-server',
      severity: 'error',
      comment: 'The web app never imports server code; both share packages/contracts.',
      from: { path: '^web/' },
      to: { path: '^server/' },
    },
    {
      name: 'server-not-web',
      severity: 'error',
      comment: 'The server never imports web code.',
      from: { path: '^server/' },
      to: { path: '^web/' },
    },
    {
      name: 'contracts-import-nothing-of-ours',
      severity: 'error',
      comment: 'Contracts are the shared vocabulary: they import no server or web code.',
      from: { path: '^packages/contracts/' },
      to: { path: '^(server|web)/' },
    },
    {
      name: 'lower-layers-not-http',
      severity: 'error',
      comment:
        'services, ingest, policies, serve, storage, repositories and db are below HTTP: they never import http/.',
      from: { path: '^server/src/(services|ingest|policies|serve|storage|repositories|db|domain)/' },
      to: { path: '^server/src/http/' },
    },
    {
      name: 'domain-imports-nothing-of-ours',
      severity: 'error',
      comment:
        'domain/ (errors, Actor, request metadata, the review transitions) is what every layer shares: it imports only contracts.',
      from: { path: '^server/src/domain/' },
      to: { path: '^(server|web)/', pathNot: '^server/src/domain/' },
    },
    {
      name: 'nothing-imports-routes',
      severity: 'error',
      comment: 'Routes are the top: only app.ts registers them.',
      from: { path: '^server/src/', pathNot: '^server/src/(app\\.ts|routes/)' },
      to: { path: '^server/src/routes/' },
    },
    {
      name: 'repositories-below-services',
      severity: 'error',
      comment: 'Repositories hold queries; they never call services or routes.',
      from: { path: '^server/src/repositories/' },
      to: { path: '^server/src/(services|routes)/' },
    },
    {
      name: 'search-plan-is-pure',
      severity: 'error',
      comment:
        'The showcase search planner needs no database (its spec runs without one). Where SQL may be written is held by server/test/layout.test.ts: npm packages are outside this graph.',
      from: { path: '^server/src/search/plan\\.ts$' },
      to: { path: '^server/src/(db/database|repositories/|search/sql|search/index-maintenance)' },
    },
    {
      name: 'services-not-routes-or-presenters',
      severity: 'error',
      comment: 'Services return domain data; routes present it.',
      from: { path: '^server/src/services/' },
      to: { path: '^server/src/routes/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
