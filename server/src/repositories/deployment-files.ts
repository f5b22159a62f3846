/** The deployment_files table: the file list of each deployment. */
import { type SqlBool, sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import type { DeploymentFileRow } from '../db/types.js';

export interface NewDeploymentFile {
  path: string;
  size: number;
  mimeType: string;
  extension: string;
  sha256: string;
  downloadOnly: boolean;
}

/**
 * A deployment's file rows, in one statement: the rows go as one JSON parameter that the database
 * unpacks (PostgreSQL's json_array_elements, SQLite's json_each), so nothing builds or binds
 * thousands of values (a 5,000-file site took ~100 ms of query building alone).
 */
export async function insertMany(
  trx: DB,
  deploymentId: number,
  files: readonly NewDeploymentFile[],
  dialect: Dialect,
) {
  if (files.length === 0) return;
  const rows = JSON.stringify(
    files.map((f) => [f.path, f.size, f.mimeType, f.extension, f.sha256, f.downloadOnly ? 1 : 0]),
  );
  const columns = sql`deployment_files (deployment_id, path, size, mime_type, extension, sha256, download_only)`;
  if (dialect === 'postgres') {
    await sql`insert into ${columns}
      select ${deploymentId}, r->>0, (r->>1)::bigint, r->>2, r->>3, r->>4, (r->>5)::integer
      from json_array_elements(${rows}::json) as r`.execute(trx);
  } else {
    await sql`insert into ${columns}
      select ${deploymentId}, value->>0, value->>1, value->>2, value->>3, value->>4, value->>5
      from json_each(${rows})`.execute(trx);
  }
}

/** A file row of a version a new one is built on (a base-version deploy's base). */
export interface BaseDeploymentFile {
  path: string;
  sha256: string;
  size: number;
  mime_type: string;
  extension: string;
  download_only: number;
}

/**
 * A new version's rows when most of them are another version's as they are (a base-version
 * deploy: docs/decisions/deploys.md "Base-version deploys"): every row of `baseId` except the
 * paths in `except` is copied by the database (`INSERT … SELECT`, one indexed read); the caller
 * writes the others with insertMany. The caller has checked that each copied row is the row the
 * pipeline decided for that path now (same content, size, type, extension and download-only flag),
 * so the result is the same set of rows insertMany would write, at a cost that grows with the
 * change, not the site (a 5,000-file site's rows took 25–230 ms from JSON under load).
 */
export async function copyFromBase(
  trx: DB,
  deploymentId: number,
  baseId: number,
  except: readonly string[],
  dialect: Dialect,
) {
  const skipped = JSON.stringify(except);
  const copied = sql`deployment_files (deployment_id, path, size, mime_type, extension, sha256, download_only)`;
  if (dialect === 'postgres') {
    await sql`insert into ${copied}
      select ${deploymentId}, path, size, mime_type, extension, sha256, download_only
      from deployment_files
      where deployment_id = ${baseId}
        and path not in (select json_array_elements_text(${skipped}::json))`.execute(trx);
  } else {
    await sql`insert into ${copied}
      select ${deploymentId}, path, size, mime_type, extension, sha256, download_only
      from deployment_files
      where deployment_id = ${baseId} and path not in (select value from json_each(${skipped}))`.execute(trx);
  }
}

/** What serving needs of each file of a deployment. */
export function servingRows(db: DB, deploymentId: number) {
  return db
    .selectFrom('deployment_files')
    .select(['path', 'size', 'mime_type', 'sha256'])
    .where('deployment_id', '=', deploymentId)
    .execute();
}

/** Every blob hash any deployment refers to, each once. */
/**
 * Every blob a row refers to: the versions' files and their rendered pictures (docs/render.md),
 * each once, in order. Plain SQL, the same on both engines; the backup runs it inside the dump's
 * snapshot (backup/backup.ts, db/snapshot.ts).
 */
const REFERENCED_BLOBS_SQL =
  'select sha256 from deployment_files' +
  ' union select thumbnail_sha256 from deployments where thumbnail_sha256 is not null' +
  ' union select thumbnail_small_sha256 from deployments where thumbnail_small_sha256 is not null' +
  ' order by 1';

/** Every blob a row refers to (REFERENCED_BLOBS_SQL): what a backup copies and a restore checks is in the store. */
export async function referencedHashes(db: DB): Promise<string[]> {
  const { rows } = await sql.raw<{ sha256: string }>(REFERENCED_BLOBS_SQL).execute(db);
  return rows.map((r) => r.sha256);
}

/** A deployment's files, by path. */
export function ofDeployment(db: DB, deploymentId: number): Promise<DeploymentFileRow[]> {
  return db
    .selectFrom('deployment_files')
    .selectAll()
    .where('deployment_id', '=', deploymentId)
    .orderBy('path')
    .execute();
}

/** The first `n` paths (by name) of each deployment, in one query. */
export async function firstPaths(db: DB, deploymentIds: number[], n: number): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (deploymentIds.length === 0) return out;
  const ranked = db
    .selectFrom('deployment_files')
    .select([
      'deployment_id',
      'path',
      sql<number>`row_number() over (partition by deployment_id order by path)`.as('rank'),
    ])
    .where('deployment_id', 'in', deploymentIds)
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .select(['ranked.deployment_id', 'ranked.path'])
    .where('ranked.rank', '<=', n)
    .orderBy('ranked.deployment_id')
    .orderBy('ranked.rank')
    .execute();
  for (const r of rows) {
    const list = out.get(r.deployment_id) ?? [];
    list.push(r.path);
    out.set(r.deployment_id, list);
  }
  return out;
}

/** Of these hashes, the ones no deployment file references any more. */
export async function unreferenced(trx: DB, hashes: string[]): Promise<string[]> {
  const unique = [...new Set(hashes)];
  const used = new Set<string>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    for (const h of await referenced(trx, chunk)) used.add(h);
    // A version's rendered pictures (docs/render.md) live as long as the version.
    const pictures = await trx
      .selectFrom('deployments')
      .select(['thumbnail_sha256', 'thumbnail_small_sha256'])
      .where((eb) => eb.or([eb('thumbnail_sha256', 'in', chunk), eb('thumbnail_small_sha256', 'in', chunk)]))
      .execute();
    for (const r of pictures) {
      if (r.thumbnail_sha256) used.add(r.thumbnail_sha256);
      if (r.thumbnail_small_sha256) used.add(r.thumbnail_small_sha256);
    }
  }
  return unique.filter((h) => !used.has(h));
}

/**
 * The rows whose content is one of `hashes` (`column`: the sha256 column, qualified when joined):
 * found through the index of the hashes' first 8 characters (migration 039, whose expression this
 * is, its numbers written into the statement so that both engines' planners match it), then
 * compared whole. A full-hash index cost each new version's rows a page of the index each
 * (docs/decisions/data.md "Contents found by a prefix of their hash").
 */
export function withContent(column: 'sha256' | 'deployment_files.sha256', hashes: readonly string[]) {
  const ref = sql.ref(column);
  const prefixes = [...new Set(hashes.map((h) => h.slice(0, 8)))];
  return sql<SqlBool>`substr(${ref}, 1, 8) in (${sql.join(prefixes)}) and ${ref} in (${sql.join(hashes)})`;
}

/** Of these hashes, the ones some version's files reference (any project's, any account's). */
export async function referenced(db: DB, hashes: readonly string[]): Promise<string[]> {
  const unique = [...new Set(hashes)];
  const found: string[] = [];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom('deployment_files')
      .select('sha256')
      .distinct()
      .where(withContent('sha256', unique.slice(i, i + 500)))
      .execute();
    for (const r of rows) found.push(r.sha256);
  }
  return found;
}

/** Every hash of a project's files (before deleting it). */
export async function hashesOfProject(db: DB, projectId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('deployment_files')
    .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
    .select('deployment_files.sha256')
    .distinct()
    .where('deployments.project_id', '=', projectId)
    .execute();
  return rows.map((r) => r.sha256);
}

export async function isReferenced(db: DB, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('deployment_files')
    .select(sql<number>`1`.as('x'))
    .where(withContent('sha256', [sha256]))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The distinct contents (SHA-256) of one version's files. */
export async function hashesOfDeployment(db: DB, deploymentId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('deployment_files')
    .select('sha256')
    .distinct()
    .where('deployment_id', '=', deploymentId)
    .execute();
  return rows.map((r) => r.sha256);
}
