/**
 * Version files found by their content (docs/decisions/data.md "Contents found by a prefix of their
 * hash"): the index holds each hash's first 8 characters (migration 039), and every lookup by
 * content (which contents some version references, whether one does, which an account holds) goes
 * through it and then compares the whole hash, so a hash that shares a prefix is never taken for
 * another. On both engines, with each engine's plan read for the statements as the repositories
 * write them.
 */
import { type CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DB } from '../src/db/database.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import { hashesOwnedBy } from '../src/repositories/deployments.js';
import { createTestApp, SIMPLE_SITE, type TestApp, uploadProject, usingPostgres } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A hash made of `prefix` (8 characters) and `rest`, 64 characters in all. */
const hash = (prefix: string, rest: string) => (prefix + rest.repeat(64)).slice(0, 64);

/** The statements `work` runs, compiled as the database receives them. */
async function statementsOf(work: (db: DB) => Promise<unknown>): Promise<CompiledQuery[]> {
  const seen: CompiledQuery[] = [];
  const executor = t.ctx.db.getExecutor();
  const logger: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      seen.push(executor.compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  await work(t.ctx.db.withPlugin(logger));
  return seen;
}

/** The engine's plan of one statement, as text; on PostgreSQL with sequential scans ruled out. */
async function planOf(query: CompiledQuery): Promise<string> {
  return t.ctx.db.transaction().execute(async (trx) => {
    if (usingPostgres) await sql`set local enable_seqscan = off`.execute(trx);
    const explain = usingPostgres ? 'explain ' : 'explain query plan ';
    const { rows } = await trx.executeQuery<Record<string, unknown>>({
      ...query,
      sql: explain + query.sql,
    });
    return rows.map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
  });
}

describe('version files found by their content', () => {
  let owner: { id: number; token: string };
  let deploymentId: number;
  let held: string;
  let twin: string;
  let other: string;

  beforeAll(async () => {
    owner = await t.createUser();
    const res = await uploadProject(t, owner.token, { files: SIMPLE_SITE });
    expect(res.statusCode, res.body).toBe(201);
    const projectId = res.json().data.project.id as number;
    const row = await t.ctx.db
      .selectFrom('deployments')
      .select('id')
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow();
    deploymentId = row.id;
    // Two more rows of the version: contents that share their first 8 characters.
    held = hash('0badc0de', 'a');
    other = hash('5eed5eed', 'c');
    for (const [path, sha256] of [
      ['held.css', held],
      ['other.css', other],
    ] as const) {
      await t.ctx.db
        .insertInto('deployment_files')
        .values({
          deployment_id: deploymentId,
          path,
          size: 1,
          mime_type: 'text/css',
          extension: 'css',
          sha256,
          download_only: 0,
        })
        .execute();
    }
    // The same prefix as `held`, held by no version.
    twin = hash('0badc0de', 'b');
  });

  it('answers by the whole hash, never by its prefix', async () => {
    expect((await deploymentFiles.referenced(t.ctx.db, [held, twin, other])).sort()).toEqual(
      [held, other].sort(),
    );
    expect(await deploymentFiles.referenced(t.ctx.db, [twin])).toEqual([]);
    expect(await deploymentFiles.isReferenced(t.ctx.db, held)).toBe(true);
    expect(await deploymentFiles.isReferenced(t.ctx.db, twin)).toBe(false);
    expect(await deploymentFiles.unreferenced(t.ctx.db, [held, twin])).toEqual([twin]);
    expect([...(await hashesOwnedBy(t.ctx.db, owner.id, [held, twin, other]))].sort()).toEqual(
      [held, other].sort(),
    );
    const stranger = await t.createUser();
    expect(await hashesOwnedBy(t.ctx.db, stranger.id, [held, other])).toEqual(new Set());
  });

  it('looks each content up in the index of prefixes', async () => {
    const lookups: Array<[string, (db: DB) => Promise<unknown>]> = [
      ['referenced', (db) => deploymentFiles.referenced(db, [held, twin])],
      ['isReferenced', (db) => deploymentFiles.isReferenced(db, held)],
      ['hashesOwnedBy', (db) => hashesOwnedBy(db, owner.id, [held, twin])],
    ];
    for (const [name, lookup] of lookups) {
      const statements = await statementsOf(lookup);
      expect(statements, name).toHaveLength(1);
      expect(await planOf(statements[0]!), name).toContain('deployment_files_sha_prefix');
    }
  });
});
