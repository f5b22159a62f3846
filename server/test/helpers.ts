/**
 * Test helpers: a real app on a fresh database (a new SQLite file, or a new PostgreSQL database when
 * the project runs with TEST_DB=postgres), real HTTP through app.inject, and builders for users.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { expect } from 'vitest';
import yauzl from 'yauzl';
import { type BuiltApp, buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { type DatabaseHandle, migrateToLatest, migratorFor, openDatabase } from '../src/db/database.js';
import type { BlobStore } from '../src/storage/index.js';
import { migratedPostgresDatabase } from './support/pg-template.js';
import { freePort } from './support/ports.js';
import { tempDir } from './support/temp-dirs.js';

export { tempDir };

export const usingPostgres = process.env.TEST_DB === 'postgres';
export const ADMIN_PASSWORD = 'hall-keeper-lantern-42';

export interface TestApp extends BuiltApp {
  config: Config;
  dataDir: string;
  /** An HTTP request through the real app (inject). */
  request(opts: {
    method?: string;
    url: string;
    token?: string;
    body?: unknown;
    headers?: Record<string, string>;
    payload?: string | Buffer;
    /** The client address the app sees (default 127.0.0.1). */
    ip?: string;
  }): Promise<LightMyRequestResponse>;
  login(username: string, password: string, remember?: boolean): Promise<string>;
  adminToken(): Promise<string>;
  /** Creates a user through the API; returns its id, password and a token the session service issued (no sign-in). */
  createUser(opts?: {
    username?: string;
    role?: 'admin' | 'user';
    email?: string;
  }): Promise<{ id: number; username: string; password: string; token: string }>;
  close(): Promise<void>;
}

/**
 * An empty database of its own: on PostgreSQL a new schema; on SQLite a file the caller names
 * (`file` is empty). `migrated`: on PostgreSQL, a database of its own with every migration run,
 * copied from a template (support/pg-template.ts); SQLite's new file is migrated by the app.
 */
export async function freshDatabase(
  opts: { migrated?: boolean } = {},
): Promise<{ database: Config['database']; drop: () => Promise<void> }> {
  // The specs beside the code run on one engine only (vitest.config.ts): a test that needs a
  // database belongs in server/test/, which runs on both.
  if (expect.getState().testPath?.includes(`${path.sep}server${path.sep}src${path.sep}`)) {
    throw new Error('server/src/**/*.spec.ts runs on SQLite only: put tests with a database in server/test/');
  }
  if (!usingPostgres) return { database: { kind: 'sqlite', file: '' }, drop: async () => {} };
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  if (opts.migrated) return migratedPostgresDatabase(url);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    database: { kind: 'postgres', url, schema },
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/**
 * A database of its own (SQLite in a temp folder, or a fresh PostgreSQL schema) migrated up to
 * `migration` only: `before` writes rows as they were then, the rest of the migrations run, and
 * `after` reads what they made of them. Everything is removed afterwards.
 */
export async function acrossMigration(
  migration: string,
  before: (db: Kysely<Record<string, Record<string, unknown>>>) => Promise<void>,
  after: (handle: DatabaseHandle) => Promise<void>,
): Promise<void> {
  const dataDir = tempDir();
  const { database, drop } = await freshDatabase();
  const config = loadConfig(
    { NODE_ENV: 'test', DATA_DIR: dataDir },
    database.kind === 'postgres'
      ? { database }
      : { database: { kind: 'sqlite', file: path.join(dataDir, 'db.sqlite') } },
  );
  const handle = openDatabase(config.database);
  try {
    const { error } = await migratorFor(handle).migrateTo(migration);
    expect(error).toBeUndefined();
    await before(handle.db as unknown as Kysely<Record<string, Record<string, unknown>>>);
    await migrateToLatest(handle);
    await after(handle);
  } finally {
    await handle.close();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A listed project as migrations from 027 on know the tables (for `acrossMigration`'s `before`):
 * approved and public, with one approved version that is live. `columns`: more of its columns, or
 * other values (its search text is `name`, 说明 and the owner `old` unless given). Returns its id.
 */
export async function insertOldLiveProject(
  db: Kysely<Record<string, Record<string, unknown>>>,
  owner: number,
  name: string,
  columns: Record<string, unknown> = {},
): Promise<number> {
  const at = new Date().toISOString();
  const project = await db
    .insertInto('projects')
    .values({
      owner_id: owner,
      name,
      description: '说明',
      status: 'approved',
      is_public: 1,
      view_count: 0,
      download_count: 0,
      approved_at: at,
      created_at: at,
      updated_at: at,
      search_text: `${name}\n说明\nold`,
      ...columns,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const deployment = await db
    .insertInto('deployments')
    .values({
      project_id: project.id,
      version: 1,
      status: 'approved',
      upload_type: 'zip',
      file_count: 1,
      total_size: 1,
      entry_file: 'index.html',
      created_by: owner,
      created_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .updateTable('projects')
    .set({ live_deployment_id: deployment.id })
    .where('id', '=', project.id)
    .execute();
  return Number(project.id);
}

/**
 * A user row written as migrations from 004 on know the users table (for `acrossMigration`'s
 * `before`): the owner of rows made before a later migration. Returns its id.
 */
export async function insertOldUser(
  db: Kysely<Record<string, Record<string, unknown>>>,
  username = 'old',
): Promise<number> {
  const at = new Date().toISOString();
  const user = await db
    .insertInto('users')
    .values({
      username,
      username_key: username,
      password_hash: 'x',
      role: 'user',
      email: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return user.id as number;
}

/** What closing a test app must remove besides the app: its database schema and data dir. */
const cleanups = new WeakMap<TestApp, () => Promise<void>>();
/** The store a test app was given (TestAppOptions.store), kept across a restart. */
const testStores = new WeakMap<TestApp, BlobStore>();

export interface TestAppOptions {
  /**
   * The blob store the app uses instead of the one its config opens (e.g. a fault-injecting
   * wrapper, test/support/faulty-blob-store.ts). A function's store is made from the test app's
   * config and closed with the test app; a store passed as it is stays its caller's to close.
   */
  store?: BlobStore | ((config: Config) => BlobStore);
  /** A stream that receives the app's log (JSON lines); without it the app logs nothing. */
  logStream?: NodeJS.WritableStream;
  /** Changes each HTTP server the app makes before its Node internals are checked (app.ts). */
  alterServer?: (server: import('node:http').Server) => void;
}

export async function createTestApp(
  overrides: Partial<Config> = {},
  opts: TestAppOptions = {},
): Promise<TestApp> {
  const dataDir = tempDir();
  const { database, drop } = await freshDatabase({ migrated: true });
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      ADMIN_PASSWORD,
      LOG_LEVEL: 'silent',
      // Tests that read the log read JSON lines, whatever terminal runs the suite.
      LOG_FORMAT: 'json',
      WEB_DIST: path.join(dataDir, 'no-web'),
      // One port, sandboxed, as the tests were written for; sites-port.test.ts opts in.
      SITES_PORT: '0',
      // Renders run in the render tests (they opt in); elsewhere versions are only queued.
      RENDER_WORKER: 'off',
      // Patient with a PostgreSQL that the whole suite keeps busy (a slow connection is not an
      // outage here); the fault tests use the defaults.
      DB_CONNECT_TIMEOUT_MS: '5000',
      DB_ACQUIRE_TIMEOUT_MS: '5000',
    },
    { ...(database.kind === 'postgres' ? { database } : {}), ...overrides },
  );
  const made = typeof opts.store === 'function' ? opts.store(config) : undefined;
  return startTestApp(
    config,
    async () => {
      await made?.close();
      await drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    { ...opts, store: made ?? (opts.store as BlobStore | undefined) },
  );
}

/**
 * A graceful restart: closes the app as SIGTERM does (without removing its data) and builds a new
 * one on the same database and data dir. Use only the returned app afterwards.
 */
export async function restartTestApp(t: TestApp): Promise<TestApp> {
  const cleanup = cleanups.get(t)!;
  await t.app.close();
  const store = testStores.get(t);
  return startTestApp(t.config, cleanup, store ? { store } : {});
}

async function startTestApp(
  config: Config,
  cleanup: () => Promise<void>,
  opts: Omit<TestAppOptions, 'store'> & { store?: BlobStore } = {},
): Promise<TestApp> {
  const dataDir = config.dataDir;
  const store = opts.store as BlobStore | undefined;
  const built = await buildApp(config, {
    logger: opts.logStream !== undefined,
    ...(opts.logStream ? { logStream: opts.logStream } : {}),
    ...(opts.alterServer ? { alterServer: opts.alterServer } : {}),
    ...(store ? { store } : {}),
  });
  // A start on a busy machine may find PostgreSQL slow to answer: the app then finishes starting
  // in the background (docs/decisions/faults.md "Database outages").
  await built.startup;
  await built.ctx.services.accounts.ensureFirstAdmin(ADMIN_PASSWORD);
  let adminToken: string | undefined;
  let counter = 0;

  const t: TestApp = {
    ...built,
    config,
    dataDir,
    async request({ method = 'GET', url, token, body, headers = {}, payload, ip }) {
      return built.app.inject({
        method: method as 'GET',
        url,
        ...(ip ? { remoteAddress: ip } : {}),
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        ...(body !== undefined ? { payload: body as object } : payload !== undefined ? { payload } : {}),
      });
    },
    async login(username, password, remember = false) {
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/login',
        body: { username, password, remember },
      });
      if (res.statusCode !== 200) throw new Error(`login ${username} failed: ${res.statusCode} ${res.body}`);
      return res.json().data.token as string;
    },
    async adminToken() {
      adminToken ??= await t.login('admin', ADMIN_PASSWORD);
      return adminToken;
    },
    async createUser(opts = {}) {
      const username = opts.username ?? `user${++counter}_${randomBytes(3).toString('hex')}`;
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/register',
        token: await t.adminToken(),
        body: { username, role: opts.role ?? 'user', ...(opts.email ? { email: opts.email } : {}) },
      });
      if (res.statusCode !== 201)
        throw new Error(`register ${username} failed: ${res.statusCode} ${res.body}`);
      const { password, user } = res.json().data;
      // The token comes straight from the session service: a sign-in through the API would spend
      // a second argon2 verify per user (≈30 ms of CPU, over 1,500 users a run). Tests of signing
      // in itself call t.login or loginAttempt.
      return { id: user.id, username, password, token: await sessionToken(t, user.id) };
    },
    async close() {
      await built.app.close();
      await cleanup();
    },
  };
  cleanups.set(t, cleanup);
  if (store) testStores.set(t, store);
  return t;
}

export interface UploadFile {
  /** The part's filename: a relative path for folder uploads. */
  name: string;
  content: string | Buffer;
}

/** A multipart body exactly as a browser's FormData sends it. */
export async function multipart(
  fields: Record<string, string>,
  files: UploadFile[],
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const f of files)
    fd.append(
      'files',
      new Blob([typeof f.content === 'string' ? Buffer.from(f.content) : f.content]),
      f.name,
    );
  const res = new Response(fd);
  return {
    payload: Buffer.from(await res.arrayBuffer()),
    headers: { 'content-type': res.headers.get('content-type')! },
  };
}

/** POST /api/projects/upload with the given files (or PUT /api/projects/{id} for a new version). */
export async function uploadProject(
  t: TestApp,
  token: string,
  opts: {
    name?: string;
    description?: string;
    uploadType?: string;
    files: UploadFile[];
    projectId?: number;
    /** Other form fields, as sent (spa_fallback, site_name). */
    fields?: Record<string, string>;
  },
) {
  const fields: Record<string, string> = { ...opts.fields };
  if (opts.name !== undefined) fields.project_name = opts.name;
  else if (opts.projectId === undefined) fields.project_name = '测试项目';
  if (opts.description !== undefined) fields.description = opts.description;
  if (opts.uploadType !== undefined) fields.upload_type = opts.uploadType;
  const { payload, headers } = await multipart(fields, opts.files);
  return t.request({
    method: opts.projectId === undefined ? 'POST' : 'PUT',
    url: opts.projectId === undefined ? '/api/projects/upload' : `/api/projects/${opts.projectId}`,
    token,
    payload,
    headers,
  });
}

/** A zip made with yazl from path → content. */
export async function makeZip(entries: Record<string, string | Buffer>): Promise<Buffer> {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  for (const [p, c] of Object.entries(entries)) zip.addBuffer(typeof c === 'string' ? Buffer.from(c) : c, p);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The entries of a zip (a project download) as path → text. */
export async function unzip(buf: Buffer): Promise<Record<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, z) => (err ? reject(err) : resolve(z!))),
  );
  const out: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, async (err, stream) => {
        if (err) return reject(err);
        const chunks: Buffer[] = [];
        for await (const c of stream!) chunks.push(c as Buffer);
        out[entry.fileName] = Buffer.concat(chunks).toString();
        zip.readEntry();
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}

/** Files and folders under a directory, relative, sorted (to check nothing was left behind). */
export function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((p) => p.split(path.sep).join('/'))
    .sort();
}

/** Row counts of the project tables: all zero after a refused first upload. */
export async function projectRowCounts(t: TestApp) {
  const count = async (table: 'projects' | 'deployments' | 'deployment_files') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    projects: await count('projects'),
    deployments: await count('deployments'),
    files: await count('deployment_files'),
  };
}

export const SIMPLE_SITE: UploadFile[] = [
  {
    name: 'index.html',
    content:
      '<!doctype html><html><head><link rel="stylesheet" href="css/style.css"></head><body><h1>你好</h1></body></html>',
  },
  { name: 'css/style.css', content: 'body { color: #333; }' },
];

/** A token issued straight by the session service (no password hashing), for tests needing many. */
export async function sessionToken(t: TestApp, userId: number, remember = false): Promise<string> {
  const user = await t.ctx.db
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return (await t.ctx.services.sessions.issue(user, { remember })).token;
}

/** POST /api/auth/login, returning the answer whatever it is (t.login throws unless it succeeds). */
export function loginAttempt(
  t: TestApp,
  username: string,
  password: string,
  opts: { ip?: string; remember?: boolean } = {},
) {
  return t.request({
    method: 'POST',
    url: '/api/auth/login',
    body: { username, password, ...(opts.remember ? { remember: true } : {}) },
    ip: opts.ip,
  });
}

/** Audit log rows, oldest first, optionally of one action and/or one target. */
export async function auditEntries(t: TestApp, filter: { action?: string; targetId?: number } = {}) {
  let q = t.ctx.db.selectFrom('audit_logs').selectAll().orderBy('id');
  if (filter.action) q = q.where('action', '=', filter.action);
  if (filter.targetId !== undefined) q = q.where('target_id', '=', String(filter.targetId));
  return q.execute();
}

/**
 * Asserts the failure envelope of docs/product.md "API shape": the status, { success: false, message }
 * with a non-empty message (the given one when passed), and string-valued per-field errors if any.
 */
export function expectFailure(res: LightMyRequestResponse, status: number, message?: string) {
  if (res.statusCode !== status) {
    throw new Error(`expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
  }
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json() as { success: unknown; message: unknown; errors?: unknown };
  expect(body.success).toBe(false);
  expect(typeof body.message).toBe('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  if (message !== undefined) expect(body.message).toBe(message);
  if (body.errors !== undefined) {
    expect(typeof body.errors).toBe('object');
    for (const v of Object.values(body.errors as object)) expect(typeof v).toBe('string');
  }
  return body as { success: false; message: string; errors?: Record<string, string> };
}

/** An admin review decision through the API (approve, reject, publish, unpublish, takedown). */
export async function review(t: TestApp, projectId: number, action: string, comment?: string) {
  return t.request({
    method: 'POST',
    url: `/api/admin/projects/${projectId}/review`,
    token: await t.adminToken(),
    body: { action, ...(comment !== undefined ? { comment } : {}) },
  });
}

/** Uploads a site as a new user's project and approves it: a live site. */
export async function liveProject(
  t: TestApp,
  files: UploadFile[] = SIMPLE_SITE,
  opts: { name?: string; owner?: { token: string } } = {},
) {
  const owner = opts.owner ?? (await t.createUser());
  const res = await uploadProject(t, owner.token, { name: opts.name ?? '上线项目', files });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  const id = res.json().data.project.id as number;
  const approved = await review(t, id, 'approve');
  if (approved.statusCode !== 200) throw new Error(`approve failed: ${approved.statusCode} ${approved.body}`);
  return { id, owner };
}

/** Listens on a loopback port (once per app) and returns it: for requests inject() would alter. */
export async function listenPort(t: TestApp): Promise<number> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as import('node:net').AddressInfo).port;
}

export interface RawResponse {
  status: number;
  headers: import('node:http').IncomingHttpHeaders;
  body: Buffer;
}

/**
 * An HTTP request over a real socket with the path sent exactly as given: app.inject resolves
 * '..' and turns '\' into '/' before the app sees them, which would hide what a real client sends.
 */
export async function rawRequest(
  port: number,
  rawPath: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: rawPath,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export { freePort };
