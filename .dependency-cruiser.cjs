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
      name: 'no-folder-cycles',
      severity: 'error',
      comment:
        'No two folders import each other, directly or round a longer loop: each folder of server/src sits above or below every other it touches (docs/architecture.md "Import rules, checked").',
      scope: 'folder',
      from: { path: '^server/src/[^/]+' },
      to: { circular: true, pathNot: '^server/src$' },
    },
    {
      name: 'lower-layers-not-http',
      severity: 'error',
      comment:
        'Everything below the HTTP adapters (services, ingest, policies, serve, storage, repositories, db, domain, content-check, render, search, cluster, metrics, presenters, jobs, backup) never imports http/.',
      from: {
        path: '^server/src/(services|ingest|policies|serve|storage|repositories|db|domain|content-check|render|search|cluster|metrics|presenters|jobs|backup|workers)/',
      },
      to: { path: '^server/src/http/' },
    },
    {
      name: 'domain-imports-nothing-of-ours',
      severity: 'error',
      comment:
        'domain/ (errors, Actor, request metadata, the review transitions, pure rules and helpers) is what every layer shares: it imports only contracts.',
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
      name: 'only-routes-present',
      severity: 'error',
      comment:
        'presenters/ are the only place rows become JSON, and routes call them: services, jobs and the layers below return rows and plain values.',
      from: { path: '^server/src/', pathNot: '^server/src/(routes|presenters)/' },
      to: { path: '^server/src/presenters/' },
    },
    {
      name: 'presenters-read-rows',
      severity: 'error',
      comment:
        'A presenter turns rows (db/ and repositories/ types) into DTOs; it calls nothing but the policies that say what the viewer may do (abilities).',
      from: { path: '^server/src/presenters/' },
      to: {
        path: '^server/src/',
        pathNot: '^server/src/(presenters|domain|db/types\\.ts|repositories|policies)',
      },
    },
    {
      name: 'services-not-routes-or-presenters',
      severity: 'error',
      comment: 'Services return domain data and rows; routes present them.',
      from: { path: '^server/src/services/' },
      to: { path: '^server/src/(routes|presenters|http|jobs|app\\.ts|context\\.ts|config\\.ts)' },
    },
    {
      name: 'repositories-below-services',
      severity: 'error',
      comment: 'Repositories hold queries: they import only db/ and domain/ (and contracts).',
      from: { path: '^server/src/repositories/' },
      to: { path: '^server/src/', pathNot: '^server/src/(repositories|db|domain)/' },
    },
    {
      name: 'search-below-services',
      severity: 'error',
      comment:
        'The showcase search (planner, SQL, index upkeep) imports only db/ and domain/; services/showcase.ts calls it.',
      from: { path: '^server/src/search/' },
      to: { path: '^server/src/', pathNot: '^server/src/(search|db|domain)/' },
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
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'db/ (the Kysely instance, engine plumbing, migrations) imports only domain/ (and contracts).',
      from: { path: '^server/src/db/' },
      to: { path: '^server/src/', pathNot: '^server/src/(db|domain)/' },
    },
    {
      name: 'migrations-import-only-db',
      severity: 'error',
      comment:
        'A migration does what it did when it was written: it imports only db/, and keeps frozen copies of the algorithms it needs (006, 007).',
      from: { path: '^server/src/db/migrations/' },
      to: { path: '^server/src/', pathNot: '^server/src/db/' },
    },
    {
      name: 'only-db-runs-migrations',
      severity: 'error',
      comment:
        'Only db/ reaches into db/migrations/ (database.ts runs them, probe.ts names them); the engine type is db/dialect.ts.',
      from: { path: '^server/src/', pathNot: '^server/src/db/' },
      to: { path: '^server/src/db/migrations/' },
    },
    {
      name: 'infrastructure-imports-only-domain',
      severity: 'error',
      comment:
        'storage/ (the blob gate included), ingest/, cluster/, metrics/ and policies/ stand on domain/ alone (and contracts; ingest/ also on workers/, how a worker thread starts and is kept); serve/ adds storage/ (a site file is read from the blob store).',
      from: { path: '^server/src/(storage|ingest|cluster|metrics|policies)/' },
      to: {
        path: '^server/src/',
        pathNot: '^server/src/((storage|ingest|cluster|metrics|policies|domain)/|workers/)',
      },
    },
    {
      name: 'workers-import-nothing-of-ours',
      severity: 'error',
      comment:
        'workers/ (starting worker threads, keeping them between jobs) is plumbing under ingest/ and content-check/: it imports nothing of ours.',
      from: { path: '^server/src/workers/' },
      to: { path: '^(server|web)/', pathNot: '^server/src/workers/' },
    },
    {
      name: 'serve-below-services',
      severity: 'error',
      comment: 'serve/ decides answers for site files; it reads blobs (storage/) and imports nothing above.',
      from: { path: '^server/src/serve/' },
      to: { path: '^server/src/', pathNot: '^server/src/(serve|storage|domain)/' },
    },
    {
      name: 'checks-below-services',
      severity: 'error',
      comment:
        'The content check and the render worker are run by services: content-check/ may use render/ (the runtime findings), render/ may use serve/ (the site a page loads), both may use workers/; neither imports services, repositories or db.',
      from: { path: '^server/src/(content-check|render)/' },
      to: {
        path: '^server/src/',
        pathNot: '^server/src/(content-check|render|serve|storage|domain|workers)/',
      },
    },
    {
      name: 'config-stands-alone',
      severity: 'error',
      comment:
        'config.ts reads the environment into the option types of the code it configures (db/, storage/, cluster/); that code never imports config.ts back, nor does anything below the composition root and its adapters.',
      from: {
        path: '^server/src/(db|storage|cluster|metrics|domain|repositories|services|search|ingest|serve|content-check|render|policies|presenters|workers)/',
      },
      to: { path: '^server/src/config\\.ts$' },
    },
    {
      name: 'config-imports-what-it-configures',
      severity: 'error',
      comment:
        'config.ts imports only the option types (and defaults) of what it configures: db/, storage/, cluster/, domain/, and the mail of notices.',
      from: { path: '^server/src/config\\.ts$' },
      to: {
        path: '^server/src/',
        pathNot: '^server/src/((db|storage|cluster|domain)/|services/notifications\\.ts$)',
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // server/test/ (helpers the specs beside the code import) sits above every layer, outside them.
    exclude: { path: '(^|/)(dist|node_modules)/|^server/test/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
