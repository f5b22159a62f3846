/**
 * The deployed version a folder's next deploy builds on (docs/decisions/deploys.md "Base-version
 * deploys"): after a deploy (or an unchanged answer), the server's URL, the project, the version's
 * number and its manifest (path → SHA-256), kept beside the hash cache in
 * $XDG_CACHE_HOME/sitehall/<hash of the site folder>.base, written atomically. The next
 * deploy to the same server and project sends only the changes against it, with the SHA-256 of
 * this manifest (contracts' canonical form); a missing, unreadable or corrupt record is ignored,
 * and one the server does not recognise (409 on `base_version`) makes the CLI send the whole
 * manifest in the same run, so a wrong record never deploys a wrong site.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { canonicalManifest } from '../../contracts/src/manifest-digest.js';
import { cacheFile, writeAtomically } from './cache.js';
import { nfc } from './files.js';

/**
 * The record's first line: `sitehall-base 2 ` and a JSON object of url, project_id and version.
 * The rest is the version's manifest in contracts' canonical form, as it was sent to be hashed:
 * its SHA-256 is `base_digest` as read, with no sorting or rebuilding (a 5,000-file record as
 * JSON cost a redeploy its parse, an object of 5,000 entries and the canonical text built again:
 * docs/benchmarks.md "Redeploys in proportion to the change").
 */
const HEADER = 'sitehall-base 2 ';

export interface BaseRecord {
  url: string;
  project_id: number;
  /** The version's number in its project (第 N 版). */
  version: number;
  /** path (NFC) → SHA-256 */
  files: Map<string, string>;
  /** The SHA-256 of the manifest's canonical text, as read. */
  digest: string;
}

/** What a deploy on top of a record sends instead of `files`. */
export interface BaseChanges {
  base_version: number;
  base_digest: string;
  /** path → SHA-256 for a new or changed file, null for a removed one. */
  changes: Record<string, string | null>;
}

export function baseFile(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return cacheFile(dir, env).replace(/\.hashes$/, '.base');
}

/**
 * The record of this folder, or undefined when there is none or it is not one this CLI wrote.
 * Whatever it says, the server builds on it only when its digest is the base's (the SHA-256 of the
 * very text the changes are read against), so a damaged record can't deploy a wrong site.
 */
export function readBase(dir: string, env: NodeJS.ProcessEnv = process.env): BaseRecord | undefined {
  try {
    const text = fs.readFileSync(baseFile(dir, env), 'utf8');
    const end = text.indexOf('\n');
    if (!text.startsWith(HEADER) || end < 0) return undefined;
    const head = JSON.parse(text.slice(HEADER.length, end)) as Partial<BaseRecord>;
    const body = text.slice(end + 1);
    if (
      typeof head.url !== 'string' ||
      !Number.isSafeInteger(head.project_id) ||
      !Number.isSafeInteger(head.version) ||
      (head.version ?? 0) < 1
    ) {
      return undefined;
    }
    // Lines of path, NUL, 64 characters, newline, each checked as it is read. One regular
    // expression over the whole text (a group repeated 5,000 times) cost 38 ms on its one use in a
    // process, against ≈10 for this loop (docs/benchmarks.md "The base record read without a
    // regular expression"). The 64 characters are not checked for hex: the digest below is of
    // this very text, and the server builds on it only when that is its base's digest, which no
    // record with anything else in it can have.
    const files = new Map<string, string>();
    for (let at = 0; at < body.length; ) {
      const nul = body.indexOf('\0', at);
      const end = nul + 65;
      if (nul <= at || body.indexOf('\n', at) !== end) return undefined;
      files.set(body.slice(at, nul), body.slice(nul + 1, end));
      at = end + 1;
    }
    return {
      url: head.url,
      project_id: head.project_id!,
      version: head.version!,
      files,
      digest: createHash('sha256').update(body).digest('hex'),
    };
  } catch {
    // No record yet, or unreadable or corrupt: the whole manifest is sent.
    return undefined;
  }
}

/** What writeBase keeps: the manifest as entries of NFC path and SHA-256. */
export interface NewBaseRecord {
  url: string;
  project_id: number;
  version: number;
  files: readonly (readonly [string, string])[];
}

/** The record's text (its canonical manifest built once: see `prepared` in main.ts). */
export function baseText(record: Omit<NewBaseRecord, 'files'>, canonical: string): string {
  const { url, project_id, version } = record;
  return `${HEADER}${JSON.stringify({ url, project_id, version })}\n${canonical}`;
}

/** Replaces the folder's record (a temporary file, then a rename); failures are ignored. */
export function writeBase(
  dir: string,
  record: NewBaseRecord,
  env: NodeJS.ProcessEnv = process.env,
  canonical = canonicalManifest(record.files),
): void {
  // Without a record the next deploy sends its whole manifest, as before: never a failure.
  writeAtomically(baseFile(dir, env), () => baseText(record, canonical));
}

/**
 * A manifest's entries with their paths in NFC, as the server keeps them. The paths were refused
 * already when two are one in NFC (main.ts, files.ts `refuseNameClashes`, before any file is read):
 * they would be one entry, one of the two files silently left out, and `changesFrom` would count
 * the path twice and miss a removal.
 */
export function nfcEntries(files: readonly { path: string; sha256: string }[]): [string, string][] {
  return files.map((f) => [nfc(f.path), f.sha256]);
}

/** The changes from a record's manifest to this one (NFC paths), with the record's digest. */
export function changesFrom(
  record: BaseRecord,
  manifest: readonly (readonly [string, string])[],
): BaseChanges {
  const changes: Record<string, string | null> = {};
  let present = 0;
  for (const [name, sha256] of manifest) {
    const before = record.files.get(name);
    if (before !== undefined) present++;
    if (before !== sha256) changes[name] = sha256;
  }
  // Every recorded path still here was counted once (a manifest names a path once: nfcEntries
  // refuses two files of one NFC path): the rest went.
  if (present < record.files.size) {
    const here = new Set(manifest.map(([name]) => name));
    for (const name of record.files.keys()) if (!here.has(name)) changes[name] = null;
  }
  return { base_version: record.version, base_digest: record.digest, changes };
}
