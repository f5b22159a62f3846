/**
 * The deployed version a folder's next deploy builds on (docs/decisions/deploys.md "Base-version
 * deploys"): after a deploy (or an unchanged answer), the server's URL, the project, the version's
 * number and its manifest (path → SHA-256), kept beside the hash cache in
 * $XDG_CACHE_HOME/sitehall/<hash of the site folder>.base.json, written atomically. The next
 * deploy to the same server and project sends only the changes against it, with the SHA-256 of
 * this manifest (contracts' canonical form); a missing, unreadable or corrupt record is ignored,
 * and one the server does not recognise (409 on `base_version`) makes the CLI send the whole
 * manifest in the same run, so a wrong record never deploys a wrong site.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { canonicalManifest } from '../../contracts/src/manifest-digest.js';
import { cacheFile } from './cache.js';

const VERSION = 1;
const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface BaseRecord {
  url: string;
  project_id: number;
  /** The version's number in its project (第 N 版). */
  version: number;
  /** path (NFC) → SHA-256 */
  files: Record<string, string>;
}

/** What a deploy on top of a record sends instead of `files`. */
export interface BaseChanges {
  base_version: number;
  base_digest: string;
  /** path → SHA-256 for a new or changed file, null for a removed one. */
  changes: Record<string, string | null>;
}

export function baseFile(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return cacheFile(dir, env).replace(/\.json$/, '.base.json');
}

/** The record of this folder, or undefined when there is none or it is not one this CLI wrote. */
export function readBase(dir: string, env: NodeJS.ProcessEnv = process.env): BaseRecord | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(baseFile(dir, env), 'utf8')) as Partial<BaseRecord> & {
      format?: number;
    };
    if (
      data?.format !== VERSION ||
      typeof data.url !== 'string' ||
      !Number.isSafeInteger(data.project_id) ||
      !Number.isSafeInteger(data.version) ||
      (data.version ?? 0) < 1 ||
      typeof data.files !== 'object' ||
      data.files === null ||
      !Object.values(data.files).every((h) => typeof h === 'string' && SHA256_HEX.test(h))
    ) {
      return undefined;
    }
    return data as BaseRecord;
  } catch {
    // No record yet, or unreadable or corrupt: the whole manifest is sent.
    return undefined;
  }
}

/** Replaces the folder's record (a temporary file, then a rename); failures are ignored. */
export function writeBase(dir: string, record: BaseRecord, env: NodeJS.ProcessEnv = process.env): void {
  const file = baseFile(dir, env);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, JSON.stringify({ format: VERSION, ...record }));
    fs.renameSync(temp, file);
  } catch {
    // Without a record the next deploy sends its whole manifest, as before.
    fs.rmSync(temp, { force: true });
  }
}

/** A manifest with its paths in NFC, as the server keeps them. */
export function nfcManifest(manifest: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(manifest).map(([name, sha256]) => [name.normalize('NFC'), sha256]),
  );
}

/** The changes from a record's manifest to this one (NFC paths), with the record's digest. */
export function changesFrom(record: BaseRecord, manifest: Record<string, string>): BaseChanges {
  const changes: Record<string, string | null> = {};
  for (const [name, sha256] of Object.entries(manifest)) {
    if (!Object.hasOwn(record.files, name) || record.files[name] !== sha256) changes[name] = sha256;
  }
  for (const name of Object.keys(record.files)) if (!Object.hasOwn(manifest, name)) changes[name] = null;
  return {
    base_version: record.version,
    base_digest: createHash('sha256')
      .update(canonicalManifest(Object.entries(record.files)))
      .digest('hex'),
    changes,
  };
}
