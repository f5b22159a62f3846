import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests read the contracts' sources, so a change there needs no build first.
const contracts = fileURLToPath(new URL('./packages/contracts/src/index.ts', import.meta.url));
const contractsModule = (name: string) =>
  fileURLToPath(new URL(`./packages/contracts/src/${name}.ts`, import.meta.url));

/**
 * Server tests run on SQLite always, and again on PostgreSQL when TEST_DATABASE_URL is set; the unit
 * specs beside the code (`.spec.ts` under src) open no database, so they run once, with SQLite's
 * (test/helpers.ts refuses them a database). Web unit tests run in jsdom.
 */
const serverProject = (
  name: string,
  env: Record<string, string>,
  include: string[],
  exclude: string[] = [],
) => ({
  extends: true as const,
  test: {
    name,
    root: './server',
    include,
    exclude,
    environment: 'node',
    env,
    // Bounds for a loaded 2-core runner: tests wait for conditions, so these only decide how long a
    // real failure takes to be reported.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // One module graph per worker, not one per file: importing the app (Fastify, Kysely, the S3
    // client...) took about 3 s per file, over half the server suites' time on a 2-core machine.
    // Each file still builds its own app, database and data dir; this file undoes what a test file
    // could leave to the next (spies, fake timers).
    isolate: false,
    setupFiles: ['./test/between-files.ts'],
    // expect.poll gives up after 1 s by default: far less than a loaded runner can need for a child
    // server to write its first staging file. Polls end as soon as their condition holds.
    expect: { poll: { timeout: 60_000 } },
  },
});

/**
 * Server test files whose subject does not reach the database engine (docs/decisions/tests.md
 * "Files that run on one engine"): the code's layout, the CLI's own behaviour, Chromium's visitor,
 * what a render finds and its memory bounds, proxies, TLS, connection handling and response
 * headers; serving a live site, slow and failing request bodies, sign-in abuse, the content
 * check's findings and a render in Chromium, whose rows are written by the same queries the files
 * on both engines test. They run on SQLite only; everything whose subject is what the database
 * stores, or how it behaves, runs on both.
 */
const SQLITE_ONLY = [
  'test/layout.test.ts',
  'test/render-visitor.test.ts',
  'test/render-findings.test.ts',
  'test/render-bounds.test.ts',
  'test/sitehall-cli.test.ts',
  'test/cli-download.test.ts',
  'test/faults/nginx-faults.test.ts',
  'test/faults/redis-faults.test.ts',
  'test/fast-connections.test.ts',
  'test/custom-domains-tls.test.ts',
  'test/slow-heads.test.ts',
  'test/hsts.test.ts',
  'test/web-app.test.ts',
  'test/web-app-assets.test.ts',
  'test/cookie-jar.test.ts',
  'test/logging.test.ts',
  'test/first-admin.test.ts',
  'test/render.test.ts',
  'test/crash-s3.test.ts',
  'test/abuse.test.ts',
  'test/slow-uploads.test.ts',
  'test/slow-bodies.test.ts',
  'test/content-check.test.ts',
  'test/nginx.test.ts',
  'test/sites.test.ts',
  'test/site-routing.test.ts',
  'test/site-fast-path.test.ts',
  'test/site-fast-path-switch.test.ts',
  'test/site-error-pages.test.ts',
  'test/site-index.test.ts',
  'test/sites-port.test.ts',
  'test/sites-origin.test.ts',
  'test/file-types.test.ts',
  'test/storage-s3.test.ts',
  'test/s3-stand.test.ts',
  'test/download-limits.test.ts',
  'test/openapi.test.ts',
];

/**
 * Web test files that replace a module of the app with `vi.mock`, found by reading them. Every
 * other web file shares one module graph per worker (`isolate: false`, as the server's files do):
 * each file's own import of antd, the app and the setup file took about 3 s of CPU, 36 files in all
 * (docs/decisions/tests.md "One module graph for the web files"). A module replaced for one file
 * would stay replaced for the files after it in that worker, or not be replaced at all when an
 * earlier file had loaded it, so these files keep a graph of their own.
 */
const webRoot = fileURLToPath(new URL('./web/', import.meta.url));
const WEB_MOCKING = ['src', 'test'].flatMap((dir) =>
  fs
    .readdirSync(path.join(webRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(spec|test)\.tsx?$/.test(file))
    .map((file) => `${dir}/${file.split(path.sep).join('/')}`)
    .filter((file) => /\bvi\.(do)?[mM]ock\(/.test(fs.readFileSync(path.join(webRoot, file), 'utf8'))),
);

const webProject = (name: string, files: { isolate: boolean; include?: string[]; exclude?: string[] }) => ({
  extends: true as const,
  test: {
    name,
    root: './web',
    include: files.include ?? ['src/**/*.spec.{ts,tsx}', 'test/**/*.test.{ts,tsx}'],
    exclude: [...configDefaults.exclude, ...(files.exclude ?? [])],
    environment: 'jsdom',
    isolate: files.isolate,
    setupFiles: ['./test/setup.ts'],
    // A page test renders antd forms in jsdom: seconds each on a loaded 2-core machine (the setup
    // file gives each test more; see web/test/setup.ts).
    testTimeout: 120_000,
  },
});

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@sitehall\/contracts$/, replacement: contracts },
      // Modules of their own (package.json "exports"): what a worker needs without the schemas.
      { find: /^@sitehall\/contracts\/file-types$/, replacement: contractsModule('file-types') },
      { find: /^@sitehall\/contracts\/limits$/, replacement: contractsModule('limits') },
      { find: /^@sitehall\/contracts\/messages$/, replacement: contractsModule('messages') },
    ],
  },
  test: {
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine, which then
    // sat idle while tests waited on PostgreSQL, child servers and timers. Two workers there took the
    // suite from about 500 s to 280 s; a third fills the time two spend waiting on a visitor typing
    // at a person's pace, a crashed server's restart or a timer (docs/architecture.md "Run time").
    maxWorkers: Math.max(3, os.availableParallelism() + 1),
    projects: [
      serverProject('server-sqlite', { TEST_DB: 'sqlite' }, ['src/**/*.spec.ts', 'test/**/*.test.ts']),
      {
        extends: true,
        test: {
          name: 'scripts',
          root: './scripts',
          include: ['**/*.spec.mjs'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'contracts',
          root: './packages/contracts',
          include: ['src/**/*.spec.ts'],
          environment: 'node',
        },
      },
      ...(process.env.TEST_DATABASE_URL
        ? [serverProject('server-postgres', { TEST_DB: 'postgres' }, ['test/**/*.test.ts'], SQLITE_ONLY)]
        : []),
      webProject('web', { isolate: false, exclude: WEB_MOCKING }),
      webProject('web-mocking', { isolate: true, include: WEB_MOCKING }),
    ],
  },
});
