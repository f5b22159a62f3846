/**
 * Digest deploys (docs/decisions/deploys.md "Digest deploys"): the client sends a manifest of path →
 * SHA-256, the server answers with the contents it does not hold, the client PUTs those, and
 * finish commits the whole set as a new pending version through the upload pipeline
 * (uploads.commitHeld). The blob store is content-addressed, so an unchanged file is never
 * sent twice.
 *
 * An unfinished deploy leases every hash of its manifest under `deploy:{id}` (so neither the
 * orphan sweep nor a project deletion removes a blob it will use) until it is finished or expires
 * (10 minutes idle, 45 after it began); the leftover sweep then removes its row, its lease and any
 * blob it uploaded that nothing references. Its bytes count in the owner's used space from the
 * first one (reserved before they are written), and dedupe never crosses accounts: only contents
 * of the account's own versions are skipped, and finish takes only those or what this deploy sent
 * (docs/decisions/deploys.md "API tokens and digest deploys").
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import {
  canonicalManifest,
  DEPLOY_BATCH_FILES_MAX,
  DEPLOY_IDLE_MS,
  DEPLOY_MAX_AGE_MS,
  DEPLOY_TRANSFERS_IN_FLIGHT_MAX,
  format,
  formatBytes,
  messages,
  OPEN_DEPLOYS_MAX,
  type StartDeployBody,
  type StartedDeployDto,
} from '@sitehall/contracts';
import { type DB, now } from '../db/database.js';
import type { DeployRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { eachLimit, mapLimit } from '../domain/concurrency.js';
import {
  AppError,
  Conflict,
  InsufficientStorage,
  Invalid,
  NotFound,
  TooLarge,
  TooManyRequests,
} from '../domain/errors.js';
import { PerAccountInFlight } from '../domain/in-flight.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { WeightedLru } from '../domain/weighted-lru.js';
import {
  type ContentFacts,
  checkFileNames,
  factsOfBytes,
  factsOfHead,
  HEAD_BYTES,
  isTextName,
  withoutJunk,
} from '../ingest/index.js';
import {
  newStagingPath,
  type ReceivedContent,
  receiveCounted,
  stagingRoot,
  writeCounted,
} from '../ingest/staging.js';
import type { BaseDeploymentFile } from '../repositories/deployment-files.js';
import type { DeploysRepository } from '../repositories/deploys.js';
import type { LeasesRepository } from '../repositories/leases.js';
import type { BlobGate } from '../storage/blob-gate.js';
import { isDiskFull } from '../storage/disk-space.js';
import type { BlobStore } from '../storage/index.js';
import type { QuotaService } from './quota.js';
import type { SettingsService } from './settings.js';
import type { UploadDelivery, UploadService } from './uploads.js';

const m = messages.deploy;

/** Whether a manifest names exactly a version's files, each with the same contents. */
function sameFiles(version: Map<string, string>, manifest: Record<string, string>): boolean {
  const entries = Object.entries(manifest);
  if (entries.length !== version.size) return false;
  return entries.every(([name, sha256]) => version.get(name.normalize('NFC')) === sha256);
}
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** Store lookups and blob reads in flight at once. */
const CONCURRENCY = 16;
/**
 * A batch's files of at most this size are received into memory, up to BATCH_MEMORY_BYTES per
 * batch (the CLI sends about 8 MB per batch); larger ones, and those past the batch's budget, are
 * written to staging files as they arrive.
 */
const PART_MEMORY_BYTES = 1024 * 1024;
const BATCH_MEMORY_BYTES = 8 * 1024 * 1024;
/**
 * All batches of this instance hold at most this much in memory at once, whatever the number of
 * accounts and requests: past it, parts go to staging files.
 */
const INSTANCE_MEMORY_BYTES = 64 * 1024 * 1024;
/** A PUT without Content-Length reserves quota in steps of this much as its bytes arrive. */
const RESERVE_STEP = 1024 * 1024;

/** Bytes of heads the facts cache keeps (each entry also counts ENTRY_BYTES for the rest). */
const FACTS_CACHE_BYTES = 64 * 1024 * 1024;
const ENTRY_BYTES = 256;

/**
 * The content facts of blobs by hash, the most recently used within a byte budget. A blob never
 * changes under its hash, so an entry never goes stale; `utf8Known` says whether the whole blob
 * was read (only then does `utf8` tell anything).
 */
class FactsCache {
  readonly #entries = new Map<string, { facts: ContentFacts; utf8Known: boolean }>();
  #bytes = 0;

  get(sha256: string, needUtf8: boolean): ContentFacts | undefined {
    const entry = this.#entries.get(sha256);
    if (!entry || (needUtf8 && !entry.utf8Known)) return undefined;
    this.#entries.delete(sha256);
    this.#entries.set(sha256, entry);
    return entry.facts;
  }

  set(facts: ContentFacts, utf8Known: boolean): void {
    const old = this.#entries.get(facts.sha256);
    if (old) {
      if (old.utf8Known || !utf8Known) return;
      this.#entries.delete(facts.sha256);
      this.#bytes -= old.facts.head.length + ENTRY_BYTES;
    }
    this.#entries.set(facts.sha256, { facts, utf8Known });
    this.#bytes += facts.head.length + ENTRY_BYTES;
    for (const [sha256, entry] of this.#entries) {
      if (this.#bytes <= FACTS_CACHE_BYTES) break;
      this.#entries.delete(sha256);
      this.#bytes -= entry.facts.head.length + ENTRY_BYTES;
    }
  }
}

/** One file of a batch: the content's claimed SHA-256 (the part's field name) and its bytes. */
export interface BatchPart {
  sha256: string;
  file: Readable;
}

/** Open deploys an instance keeps in memory (a few hundred KB each at most). */
const MAX_REMEMBERED = 64;

/**
 * Rows of versions an instance keeps to build on, in all (about 300 bytes each: 30 MB; a
 * 5,000-file version is 5,000 of them).
 */
const KEPT_BASE_ROWS = 100_000;

/** A version's files as a base-version deploy composes on them, and its manifest's digest once worked out. */
interface KeptBase {
  files: readonly BaseFile[];
  digest?: string;
}

/**
 * What an instance knows of an open deploy, so that a PUT reads no manifest: the manifest's hashes
 * and the account whose quota its bytes count against; for a deploy this instance began, also the
 * sizes start found in the store.
 */
interface KnownDeploy {
  /** The hashes the store held at start, with their sizes (only when this instance began it). */
  held?: Map<string, number>;
  /** The manifest's other hashes (every one of them when `held` is absent). */
  rest: Set<string>;
  ownerId: number;
  /** The target project's newest version, where a redeploy's contents are looked for first. */
  latestVersion: number | null;
  /** A base-version deploy's base files, as start read them (a version's rows never change). */
  baseFiles?: readonly BaseFile[];
}

/** A file of a base version, as its row says. */
type BaseFile = BaseDeploymentFile;

/**
 * What a base-version deploy's row keeps beside its changes (the `base` column, migration 032):
 * the base version's row id and number, and the paths it removes.
 */
interface DeployBase {
  deployment_id: number;
  version: number;
  removed: string[];
}

/** A base-version deploy composed at start: its base, the base's files, and its own changes. */
interface Based {
  base: DeployBase;
  baseFiles: readonly BaseFile[];
  baseHashes: Set<string>;
  /** New and changed files, path (NFC) → SHA-256. */
  changed: Record<string, string>;
  /** The composed manifest, path → SHA-256. */
  files: Map<string, string>;
}

/**
 * The refusal of a base the server can't build on (docs/decisions/deploys.md "Base-version
 * deploys"): 409 with the field `base_version`, which the CLI takes as "send the whole manifest".
 */
function baseRefused(message: string): Conflict {
  return new Conflict(message, 'base_version');
}

/** The SHA-256 of a manifest in contracts' canonical form (what `base_digest` is). */
function manifestDigest(files: Iterable<readonly [string, string]>): string {
  return createHash('sha256').update(canonicalManifest(files)).digest('hex');
}

/** The blob lease of a deploy (no instance prefix: it outlives requests, and ends by age). */
export function deployLease(id: string): string {
  return `deploy:${id}`;
}

/** The contents a deploy received (their bytes checked against their hash), as a blob lease too. */
export function sentLease(id: string): string {
  return `deploy:${id}:sent`;
}

/** When a deploy in use now expires: idle time from now, but never past its maximum age. */
function expiryFrom(createdAt: string): string {
  return new Date(
    Math.min(Date.now() + DEPLOY_IDLE_MS, Date.parse(createdAt) + DEPLOY_MAX_AGE_MS),
  ).toISOString();
}

/** The refusal of a start while the account has OPEN_DEPLOYS_MAX open, with when the first ends. */
function tooManyOpen(open: { n: number; firstExpiry: string | null }, at: string): TooManyRequests {
  const waitSeconds = (Date.parse(open.firstExpiry ?? at) - Date.parse(at)) / 1000;
  return new TooManyRequests(
    format(m.tooManyOpenDeploys, { n: open.n, minutes: Math.max(1, Math.ceil(waitSeconds / 60)) }),
    waitSeconds,
  );
}

export function createDeployService(deps: {
  db: DB;
  deploys: DeploysRepository;
  leases: LeasesRepository;
  store: BlobStore;
  gate: BlobGate<DB>;
  settings: Pick<SettingsService, 'get'>;
  quota: Pick<QuotaService, 'beforeBody' | 'holdForDeploy'>;
  /** Where a deploy's files become a version (services/uploads.ts), and the project it targets. */
  uploads: Pick<UploadService, 'target' | 'replay' | 'commitHeld' | 'checkSiteName'>;
  dataDir: string;
  /** This instance's id: temporary folders are named after it, for the leftover sweep. */
  owner?: string;
}) {
  const { db, deploys, leases, store, gate, settings, quota, uploads } = deps;
  const known = new FactsCache();
  /**
   * Versions' files kept to build on, by row id, weighed by their rows, the least recently used going
   * first past KEPT_BASE_ROWS: those this instance committed from a deploy, and those it read as a
   * base. A version's rows never change once committed, and go only with its project, whose
   * deployment row (looked up first, composeOnBase) goes with them: so the next deploy built on the
   * version just deployed, a watched folder's, composes without reading its rows back and digesting
   * them again (docs/benchmarks.md "Digest deploys", session 56).
   */
  const kept = new WeightedLru<number, KeptBase>(KEPT_BASE_ROWS, KEPT_BASE_ROWS, (b) => b.files.length);
  /** Keeps a version's files (a version of more than KEPT_BASE_ROWS is used, not kept). */
  const keepBase = (id: number, files: readonly BaseFile[]): KeptBase => {
    const base: KeptBase = { files };
    kept.set(id, base);
    return base;
  };
  /**
   * This instance's open deploys, by id (the oldest dropped past MAX_REMEMBERED): those it began,
   * and those another instance (or this one before a restart) began once a PUT here has read their
   * manifest. The deploy's lease keeps the blobs start found until it ends, so finish stats only
   * the hashes that were missing; without `held` it stats every hash.
   */
  const remembered = new Map<string, KnownDeploy>();
  /** Manifests being read for a deploy this instance does not know (concurrent PUTs read one). */
  const reading = new Map<string, Promise<KnownDeploy>>();

  function remember(id: string, deploy: KnownDeploy): void {
    remembered.set(id, deploy);
    if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
  }

  /** What a PUT needs of an open deploy: from memory, else (begun elsewhere) from its row, once. */
  function knownDeploy(actor: Actor, id: string, projectId: number | null): Promise<KnownDeploy> {
    const mine = remembered.get(id);
    if (mine) return Promise.resolve(mine);
    let pending = reading.get(id);
    if (!pending) {
      pending = (async () => {
        const manifest = await deploys.manifestOf(db, id);
        if (manifest === undefined) throw new NotFound(m.deployNotFound);
        const project = projectId === null ? null : await uploads.target(actor, projectId);
        const deploy = {
          rest: new Set(Object.values(JSON.parse(manifest) as Record<string, string>)),
          ownerId: project?.owner_id ?? actor.id,
          latestVersion: project?.latest_deployment_id ?? null,
        };
        remember(id, deploy);
        return deploy;
      })().finally(() => reading.delete(id));
      reading.set(id, pending);
    }
    return pending;
  }

  /**
   * A file of its own directly under staging/ (a PUT's body: no folder to make and remove for each
   * of a first deploy's thousands of files). The staging folder is made once.
   */
  let stagingReady: Promise<unknown> | undefined;
  /** Bytes the batches being received hold in memory now (at most INSTANCE_MEMORY_BYTES). */
  let memoryInUse = 0;
  async function stagingFile(): Promise<string> {
    stagingReady ??= fs.promises
      .mkdir(stagingRoot(deps.dataDir), { recursive: true })
      .catch((error: unknown) => {
        stagingReady = undefined;
        throw error;
      });
    await stagingReady;
    return newStagingPath(deps.dataDir, deps.owner);
  }

  async function open(actor: Actor, id: string): Promise<DeployRow & { files: Record<string, string> }> {
    const row = await deploys.byId(db, id, actor.id, now());
    if (!row) throw new NotFound(m.deployNotFound);
    return { ...row, files: JSON.parse(row.manifest) as Record<string, string> };
  }

  /**
   * Which of these contents the owner's versions hold: first those of the target project's newest
   * version (a redeploy's unchanged files: one indexed read of its rows), then the rest across
   * all the owner's versions (a few changed files, or nothing the owner has: no rows to join).
   */
  async function ownedOf(
    ownerId: number,
    latestVersion: number | null,
    hashes: string[],
    /** The newest version's contents, when the caller has read them already. */
    latestHashes?: ReadonlySet<string>,
  ): Promise<Set<string>> {
    const owned = new Set<string>();
    if (latestVersion !== null) {
      const inLatest = latestHashes ?? (await deploys.hashesOfVersion(db, latestVersion));
      for (const h of hashes) if (inLatest.has(h)) owned.add(h);
    }
    const rest = hashes.filter((h) => !owned.has(h));
    if (rest.length > 0) for (const h of await deploys.ownedHashes(db, ownerId, rest)) owned.add(h);
    return owned;
  }

  /** The size of each of the hashes the store holds (absent ones are not in the map). */
  async function storedSizes(hashes: string[]): Promise<Map<string, number>> {
    if (store.sizes) return store.sizes(hashes);
    const stats = await mapLimit(hashes, CONCURRENCY, (h) => store.stat(h));
    const sizes = new Map<string, number>();
    hashes.forEach((h, i) => {
      const stat = stats[i];
      if (stat) sizes.set(h, stat.size);
    });
    return sizes;
  }

  /** The sizes of a deploy's hashes the store holds now: from start's findings where known. */
  async function sizesAtFinish(id: string, hashes: string[]): Promise<Map<string, number>> {
    const held = remembered.get(id)?.held;
    if (!held) return storedSizes(hashes);
    const sizes = await storedSizes(hashes.filter((h) => !held.has(h)));
    for (const [h, size] of held) sizes.set(h, size);
    return sizes;
  }

  /**
   * A held blob's facts: known ones from the cache, else from the store (the whole blob when
   * `needUtf8`, for a text type, else only its head).
   */
  async function factsOf(sha256: string, size: number, needUtf8: boolean): Promise<ContentFacts> {
    const cached = known.get(sha256, needUtf8);
    if (cached) return cached;
    const facts = needUtf8 ? await readFacts(sha256) : await headFacts(sha256, size);
    known.set(facts, needUtf8);
    return facts;
  }

  /** A held blob's facts from one pass over its bytes (hash, size, head and UTF-8). */
  async function readFacts(sha256: string): Promise<ContentFacts> {
    const facts = await factsOfBytes((await store.read(sha256)) as AsyncIterable<Buffer>, true);
    // The store is content-addressed; a blob that does not match its name is not served as it.
    if (facts.sha256 !== sha256) throw new Error(`blob ${sha256} does not match its hash`);
    return facts;
  }

  /** A held blob's facts from its head alone, for contents whose type no UTF-8 check decides. */
  async function headFacts(sha256: string, size: number): Promise<ContentFacts> {
    const chunks: Buffer[] = [];
    if (size > 0) {
      for await (const chunk of await store.read(sha256, { start: 0, end: Math.min(size, HEAD_BYTES) - 1 }))
        chunks.push(chunk as Buffer);
    }
    return factsOfHead(sha256, size, Buffer.concat(chunks));
  }

  /**
   * Drops a deploy's leases (a failed release is tried again by the gate, never failing the
   * finish) and, unless it was committed, whatever it uploaded that nothing uses.
   */
  async function release(row: DeployRow, committed = false): Promise<void> {
    remembered.delete(row.id);
    await gate.release(deployLease(row.id));
    await gate.release(sentLease(row.id));
    if (!committed)
      await gate.deleteUnused(Object.values(JSON.parse(row.manifest) as Record<string, string>));
  }

  /**
   * Bytes of one request held against the owner's quota and the deploy's size limit, in the
   * deploy's row (413 when they don't fit); `reserved` is what the request holds so far, given back
   * by the caller (all of it when nothing was kept).
   */
  function holdFor(
    actorId: number,
    id: string,
    createdAt: string,
    ownerId: number,
    limits: { maxUploadBytes: number },
    cap: number,
  ) {
    const hold = {
      reserved: 0,
      /** Holds `bytes` more (`needed`: what the request needs in all, for the quota's message). */
      async reserve(bytes: number, needed: number): Promise<void> {
        const added = await quota.holdForDeploy(
          ownerId,
          bytes,
          needed,
          (trx) => deploys.addReceived(trx, id, bytes, limits.maxUploadBytes, now(), expiryFrom(createdAt)),
          hold.reserved,
        );
        if (!added) {
          if (!(await deploys.openById(db, id, actorId, now()))) throw new NotFound(m.deployNotFound);
          throw new TooLarge(
            format(messages.project.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }),
            'files',
          );
        }
        hold.reserved += bytes;
      },
      /** At least `need` more: a step when the quota allows it, else exactly what is needed. */
      async more(need: number, needed: number): Promise<void> {
        const step = Math.max(need, Math.min(RESERVE_STEP, cap - hold.reserved));
        try {
          await hold.reserve(step, needed);
        } catch (err) {
          if (step === need || !(err instanceof TooLarge)) throw err;
          await hold.reserve(need, needed);
        }
      },
    };
    return hold;
  }

  /** A failure while a body was written to staging, as the client is told it. */
  function receiveError(err: unknown, signal?: AbortSignal): unknown {
    if (err instanceof AppError) return err;
    if (signal?.aborted && signal.reason instanceof AppError) return signal.reason;
    if (isDiskFull(err)) return new InsufficientStorage(err);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // The staging folder is gone (removed by hand): made again for the next request.
      stagingReady = undefined;
      return err;
    }
    return new AppError('invalid', messages.project.uploadInterrupted);
  }

  /**
   * A base-version deploy's files: the base version's rows (read once) with the changes applied
   * (docs/decisions/deploys.md "Base-version deploys"). Refused (409, field `base_version`, before
   * anything is opened) when the project has no such version, when `digest` is not that version's
   * manifest (the client's record of it is stale or corrupt), or when a removal names a path the
   * base does not have: the client then sends its whole manifest, so a wrong record never makes a
   * wrong site.
   */
  async function composeOnBase(
    projectId: number,
    version: number,
    digest: string,
    changes: Record<string, string | null>,
  ): Promise<Based> {
    const mismatch = () => baseRefused(format(m.baseMismatch, { version }));
    const id = await deploys.versionIdOf(db, projectId, version);
    if (id === undefined) throw mismatch();
    const base = kept.get(id) ?? keepBase(id, await deploys.filesOfVersion(db, id));
    const files = new Map(base.files.map((f) => [f.path, f.sha256]));
    base.digest ??= manifestDigest(files);
    if (base.digest !== digest) throw mismatch();
    const changed: Record<string, string> = {};
    const removed: string[] = [];
    for (const [name, sha256] of Object.entries(changes)) {
      const path = name.normalize('NFC');
      if (sha256 === null) {
        if (!files.delete(path)) throw baseRefused(format(m.baseRemovedMissing, { path, version }));
        removed.push(path);
      } else {
        files.set(path, sha256);
        changed[path] = sha256;
      }
    }
    return {
      base: { deployment_id: id, version, removed },
      baseFiles: base.files,
      baseHashes: new Set(base.files.map((f) => f.sha256)),
      changed,
      files,
    };
  }

  /**
   * The newest version's number when a base deploy's composed files are exactly its files (the
   * same answer as a full manifest's: "Unchanged deploys"), else null. When the base is the newest
   * version, its rows are what the changes were applied to: unchanged when every change keeps a
   * path's content and none removes one.
   */
  async function unchangedVersion(latestVersion: number | null, based: Based): Promise<number | null> {
    if (latestVersion === null) return null;
    if (latestVersion === based.base.deployment_id) {
      if (based.base.removed.length > 0) return null;
      const before = new Map(based.baseFiles.map((f) => [f.path, f.sha256]));
      const same = Object.entries(based.changed).every(([path, sha256]) => before.get(path) === sha256);
      return same ? based.base.version : null;
    }
    const latest = await deploys.manifestOfVersion(db, latestVersion);
    return sameFiles(latest.files, Object.fromEntries(based.files)) ? latest.version : null;
  }

  /** Transfers under way per account (DEPLOY_TRANSFERS_IN_FLIGHT_MAX). */
  const transfers = new PerAccountInFlight(DEPLOY_TRANSFERS_IN_FLIGHT_MAX, (n) =>
    format(m.tooManyTransfers, { n }),
  );

  return {
    /**
     * Counts a file transfer (a batch or one file) among the account's under way, or refuses it (429)
     * before its body is read; the route ends it when the request is done.
     */
    beginTransfer: (actor: Actor) => transfers.begin(actor.id),
    async start(actor: Actor, given: StartDeployBody): Promise<StartedDeployDto> {
      // Litter the upload would drop (Thumbs.db, .DS_Store…) is left out here: neither asked for nor
      // a change against a version that never holds it (docs/decisions/deploys.md "Litter").
      const body = {
        ...given,
        ...(given.files ? { files: withoutJunk(given.files) } : {}),
        ...(given.changes ? { changes: withoutJunk(given.changes) } : {}),
      };
      const { limits } = await settings.get();
      let ownerId = actor.id;
      let latestVersion: number | null = null;
      let latestHashes: Set<string> | undefined;
      /** A base-version deploy's base, and its changes composed onto it (docs/decisions/deploys.md). */
      let based: Based | undefined;
      if (body.project_id !== undefined) {
        const p = await uploads.target(actor, body.project_id);
        ownerId = p.owner_id;
        latestVersion = p.latest_deployment_id;
        if (body.base_version !== undefined) {
          based = await composeOnBase(p.id, body.base_version, body.base_digest!, body.changes!);
          const unchanged = await unchangedVersion(latestVersion, based);
          if (unchanged !== null) return { deploy_id: null, required: [], unchanged_version: unchanged };
        } else if (latestVersion !== null) {
          // Every file the same as the newest version's: nothing to review, so nothing is opened
          // (docs/decisions/deploys.md "Unchanged deploys").
          const latest = await deploys.manifestOfVersion(db, latestVersion);
          if (sameFiles(latest.files, body.files!)) {
            return { deploy_id: null, required: [], unchanged_version: latest.version };
          }
          // Where a redeploy's unchanged contents are found below, without reading the rows again.
          latestHashes = new Set(latest.files.values());
        }
      }
      // A site name someone holds is refused now; the finish claims it.
      if (body.site_name !== undefined) await uploads.checkSiteName(body.site_name, body.project_id ?? null);
      // The hourly upload limit, before anything is sent.
      await quota.beforeBody(actor, ownerId, undefined);
      // A few open at once (each holds bytes against the quota until it ends): refused here at
      // once, and for certain where the deploy is inserted (parallel starts all pass this).
      const at = now();
      const open = await deploys.openOf(db, actor.id, at);
      if (open.n >= OPEN_DEPLOYS_MAX) throw tooManyOpen(open, at);
      // The manifest's files, or a base deploy's new and changed ones only: the composed set's
      // names are checked again at finish by the upload pipeline (a file and a folder of one name).
      const sent = based ? based.changed : body.files!;
      const entries = Object.entries(sent);
      if (entries.length > 0) {
        checkFileNames(
          entries.map(([name, sha256]) => ({ name, size: sha256 === EMPTY_SHA256 ? 0 : 1 })),
          limits,
        );
      }
      // A base's contents are the owner's (a version of the target project) and its rows keep them
      // in the store: only new contents are leased, asked for and stat'ed.
      const hashes = [...new Set(entries.map(([, sha256]) => sha256))].filter(
        (h) => !based?.baseHashes.has(h),
      );
      const id = randomBytes(18).toString('base64url');
      // Leased before the store is asked: a blob it holds now stays until the deploy ends.
      try {
        await leases.leaseBlobs(db, deployLease(id), hashes, at);
        // Only contents of the account's own versions are skipped: whether anyone else's files
        // hold a content is neither told nor usable (docs/decisions/deploys.md "API tokens and digest
        // deploys"). A base deploy looks in its base first, as a redeploy in the newest version.
        const owned = await ownedOf(ownerId, based ? null : latestVersion, hashes, latestHashes);
        const sizes = await storedSizes([...owned]);
        const required = hashes.filter((h) => !sizes.has(h));
        const full = await deploys.insertWithinCap(
          db,
          {
            id,
            user_id: actor.id,
            project_id: body.project_id ?? null,
            project_name: body.project_name ?? null,
            description: body.description ?? null,
            site_name: body.site_name ?? null,
            manifest: JSON.stringify(sent),
            base: based ? JSON.stringify(based.base) : null,
            received_bytes: 0,
            created_at: at,
            expires_at: new Date(Date.parse(at) + DEPLOY_IDLE_MS).toISOString(),
          },
          OPEN_DEPLOYS_MAX,
        );
        if (full) throw tooManyOpen(full, at);
        remember(id, {
          held: sizes,
          rest: new Set(required),
          ownerId,
          latestVersion,
          ...(based ? { baseFiles: based.baseFiles } : {}),
        });
        return { deploy_id: id, required, batch: { max_files: DEPLOY_BATCH_FILES_MAX } };
      } catch (error) {
        await gate.release(deployLease(id));
        throw error;
      }
    },

    /**
     * One file's bytes, streamed to a staging file while hashed and counted; stored under its hash
     * only when the hash matches and the limits allow. The bytes are held against the owner's
     * quota before they are written: the declared length at once, else step by step as they
     * arrive; what a failed PUT reserved is given back, and nothing of it is kept.
     */
    async receiveFile(
      actor: Actor,
      id: string,
      sha256: string,
      body: Readable,
      declaredLength?: number,
    ): Promise<void> {
      // The row without its manifest: the deploy exists, is the actor's and has not expired (another
      // instance may have finished it); the hashes come from memory.
      const row = await deploys.openById(db, id, actor.id, now());
      if (!row) throw new NotFound(m.deployNotFound);
      const { held, rest, ownerId } = await knownDeploy(actor, id, row.project_id);
      if (!(rest.has(sha256) || held?.has(sha256))) {
        throw new Invalid('sha256', format(m.hashNotInDeploy, { sha256 }));
      }
      const { limits } = await settings.get();
      const fileTooLarge = () =>
        new TooLarge(
          format(messages.project.fileTooLarge, { size: formatBytes(limits.maxFileBytes) }),
          'files',
        );
      if (declaredLength !== undefined && declaredLength > limits.maxFileBytes) throw fileTooLarge();
      // A store known to be unreachable could not keep it: 503 before the body is read.
      store.throwIfDown?.();

      const quotaHold = holdFor(actor.id, id, row.created_at, ownerId, limits, limits.maxFileBytes);

      let size = 0;
      let kept = false;
      let file: string | undefined;
      try {
        if (declaredLength) await quotaHold.reserve(declaredLength, declaredLength);
        file = await stagingFile();
        // With the UTF-8 fact, so that finish need not read this content again.
        let facts: ContentFacts;
        try {
          facts = await writeCounted(body, file, {
            utf8: true,
            // The file becomes the blob as it is: flushed as it arrives.
            flushAhead: true,
            admit: (sizeSoFar) => {
              size = sizeSoFar;
              if (size > limits.maxFileBytes) throw fileTooLarge();
              if (size <= quotaHold.reserved) return;
              return quotaHold.more(size - quotaHold.reserved, size);
            },
          });
        } catch (err) {
          throw receiveError(err);
        }
        if (facts.sha256 !== sha256) throw new Invalid('sha256', format(m.hashMismatch, { sha256 }));
        await store.putFile(file, sha256);
        kept = true;
        // Sent and checked: finish may take this content now.
        await leases.leaseBlobs(db, sentLease(id), [sha256], now());
        known.set(facts, true);
        // Ended meanwhile (finished, or expired at its maximum age): its release may have run
        // before this lease was written, which would then keep an unused blob for an hour.
        if (!(await deploys.exists(db, id))) {
          await leases.releaseBlobs(db, sentLease(id));
          await gate.deleteUnused([sha256]);
          throw new NotFound(m.deployNotFound);
        }
      } finally {
        // Moved into the store when kept; otherwise removed here.
        if (file) await fs.promises.rm(file, { force: true, maxRetries: 3 });
        // What was reserved beyond the bytes kept (all of it when nothing was).
        await deploys
          .releaseReceived(db, id, kept ? quotaHold.reserved - size : quotaHold.reserved)
          .catch(() => undefined);
      }
    },

    /**
     * Several files in one request (docs/decisions/deploys.md "Batched file uploads"): each part
     * is received while hashed and counted (a small one into memory, a large one into a staging
     * file: `receiveCounted`), and is checked against the hash it
     * claims; only when every part of the batch has arrived and matched are they stored, so a
     * refused or cancelled batch keeps nothing and holds nothing. The batch's bytes are held
     * against the owner's quota at once from its declared length (else, or when that does not
     * fit, step by step as they arrive, exactly what is missing at the last step).
     */
    async receiveBatch(
      actor: Actor,
      id: string,
      parts: AsyncIterable<BatchPart>,
      declaredLength: number | undefined,
      signal: AbortSignal,
    ): Promise<number> {
      const row = await deploys.openById(db, id, actor.id, now());
      if (!row) throw new NotFound(m.deployNotFound);
      const { held, rest, ownerId } = await knownDeploy(actor, id, row.project_id);
      const { limits } = await settings.get();
      const fileTooLarge = () =>
        new TooLarge(
          format(messages.project.fileTooLarge, { size: formatBytes(limits.maxFileBytes) }),
          'files',
        );
      store.throwIfDown?.();
      const quotaHold = holdFor(actor.id, id, row.created_at, ownerId, limits, limits.maxUploadBytes);
      const staged: string[] = [];
      const received: (ReceivedContent & { sha256: string })[] = [];
      const seen = new Set<string>();
      let total = 0;
      /** Bytes of this batch held in memory (its small files), at most BATCH_MEMORY_BYTES. */
      let inMemory = 0;
      let kept = false;
      try {
        if (declaredLength) {
          // One reservation for the whole batch; when it does not fit (the multipart framing
          // counts in the declared length), the parts' own bytes are held as they arrive.
          await quotaHold.reserve(declaredLength, declaredLength).catch((err: unknown) => {
            if (!(err instanceof TooLarge)) throw err;
          });
        }
        for await (const part of parts) {
          const { sha256 } = part;
          const refuse = (error: AppError) => {
            part.file.resume();
            return error;
          };
          if (!/^[0-9a-f]{64}$/.test(sha256)) throw refuse(new Invalid('sha256', m.hashInvalid));
          if (!(rest.has(sha256) || held?.has(sha256)))
            throw refuse(new Invalid('sha256', format(m.hashNotInDeploy, { sha256 })));
          if (seen.has(sha256)) throw refuse(new Invalid('sha256', format(m.batchDuplicate, { sha256 })));
          seen.add(sha256);
          if (seen.size > DEPLOY_BATCH_FILES_MAX)
            throw refuse(new TooLarge(format(m.batchTooManyFiles, { n: DEPLOY_BATCH_FILES_MAX }), 'files'));
          let content: ReceivedContent;
          const allowance = Math.max(
            0,
            Math.min(PART_MEMORY_BYTES, BATCH_MEMORY_BYTES - inMemory, INSTANCE_MEMORY_BYTES - memoryInUse),
          );
          memoryInUse += allowance;
          let keptBytes = 0;
          try {
            content = await receiveCounted(part.file, {
              utf8: true,
              signal,
              inMemory: allowance,
              file: async () => {
                const file = await stagingFile();
                staged.push(file);
                return file;
              },
              admit: (size, chunk) => {
                if (size > limits.maxFileBytes) throw fileTooLarge();
                total += chunk;
                if (total <= quotaHold.reserved) return;
                return quotaHold.more(total - quotaHold.reserved, total);
              },
            });
            keptBytes = content.bytes?.length ?? 0;
          } catch (err) {
            throw receiveError(err, signal);
          } finally {
            // What the part did not keep in memory is free again; what it kept is the batch's.
            memoryInUse -= allowance - keptBytes;
            inMemory += keptBytes;
          }
          if (content.facts.sha256 !== sha256)
            throw new Invalid('sha256', format(m.hashMismatch, { sha256 }));
          received.push({ ...content, sha256 });
        }
        signal.throwIfAborted();
        if (received.length === 0) throw new Invalid('files', m.batchEmpty);
        // Every part arrived and matched: now, and only now, into the store.
        await eachLimit(received, CONCURRENCY, (r) =>
          r.bytes ? store.putBytes(r.bytes, r.sha256) : store.putFile(r.file, r.sha256),
        );
        kept = true;
        const hashes = received.map((r) => r.sha256);
        // Sent and checked: finish may take these contents now.
        await leases.leaseBlobs(db, sentLease(id), hashes, now());
        for (const r of received) known.set(r.facts, true);
        // Ended meanwhile: see receiveFile.
        if (!(await deploys.exists(db, id))) {
          await leases.releaseBlobs(db, sentLease(id));
          await gate.deleteUnused(hashes);
          throw new NotFound(m.deployNotFound);
        }
        return received.length;
      } catch (err) {
        throw signal.aborted && !(err instanceof AppError)
          ? new AppError('invalid', messages.project.uploadInterrupted)
          : err;
      } finally {
        memoryInUse -= inMemory;
        // Moved into the store when kept; otherwise removed here.
        await Promise.all(staged.map((f) => fs.promises.rm(f, { force: true, maxRetries: 3 })));
        await deploys
          .releaseReceived(db, id, kept ? quotaHold.reserved - total : quotaHold.reserved)
          .catch(() => undefined);
      }
    },

    /** Commits the deploy as a new pending version, as an upload would; the deploy is then gone. */
    /** `delivery`: the client's idempotency key (a retried finish answers with the first) and its signal. */
    async finish(actor: Actor, id: string, meta: RequestMeta, delivery: UploadDelivery = {}) {
      const replayed = await uploads.replay(actor, delivery);
      if (replayed !== undefined) return replayed;
      const deploy = await open(actor, id);
      const base = deploy.base === null ? null : (JSON.parse(deploy.base) as DeployBase);
      // Only contents this deploy received, or the account's own versions hold (found at start, or
      // now when another instance began the deploy): never one it knows only by its hash.
      const {
        held,
        ownerId,
        latestVersion,
        baseFiles: knownBase,
      } = await knownDeploy(actor, id, deploy.project_id);
      // A base deploy's base files: as start read them, else (begun elsewhere) read again; gone when
      // the version is (checked again, for certain, in the commit's transaction).
      const baseFiles =
        base === null
          ? undefined
          : (knownBase ??
            (await deploys
              .versionWithFiles(db, deploy.project_id!, base.version)
              .then((v) => (v?.id === base.deployment_id ? v.files : undefined))));
      const baseHashes = new Set(baseFiles?.map((f) => f.sha256));
      // A base's contents are the owner's by construction (a version of the target project).
      const hashes = [...new Set(Object.values(deploy.files))].filter((h) => !baseHashes.has(h));
      const sent = await leases.leasedBy(db, sentLease(id));
      const unproven = hashes.filter((h) => !sent.has(h) && !held?.has(h));
      const owned = unproven.length > 0 ? await ownedOf(ownerId, latestVersion, unproven) : new Set<string>();
      const notSent = unproven.filter((h) => !owned.has(h)).length;
      if (notSent > 0) throw new Invalid('files', format(m.filesMissing, { n: notSent }));
      const sizes = await sizesAtFinish(id, hashes);
      const absent = hashes.filter((h) => !sizes.has(h));
      if (absent.length > 0) throw new Invalid('files', format(m.filesMissing, { n: absent.length }));
      // Of two finishes at the same moment one commits; the other finds no deploy.
      if (!(await deploys.take(db, id))) throw new NotFound(m.deployNotFound);
      let committed = false;
      try {
        const baseGone = () => baseRefused(format(m.baseGone, { version: base!.version }));
        // The base went while the deploy was open (its project deleted): refused, nothing kept.
        if (base !== null && baseFiles === undefined) throw baseGone();
        // The whole file set: the base's files with the changes (docs/decisions/deploys.md
        // "Base-version deploys"), or the manifest. A base file's size is its row's (no stat).
        // (Entries, not an object: an object of 5,000 paths cost a few ms to build on each finish.)
        let entries = Object.entries(deploy.files);
        if (base !== null) {
          const composed = new Map(baseFiles!.map((f) => [f.path, f.sha256]));
          for (const f of baseFiles!) sizes.set(f.sha256, f.size);
          for (const path of base.removed) composed.delete(path);
          for (const [path, sha256] of entries) composed.set(path, sha256);
          entries = [...composed];
        }
        // The facts the checks read, without copying anything out of the store: those this instance
        // already knows (from a PUT or an earlier finish), else a text content read once through
        // (UTF-8 decides its type), any other only its head. Nothing is stored again.
        const text = new Set(entries.filter(([name]) => isTextName(name)).map(([, sha256]) => sha256));
        const all = base === null ? hashes : [...new Set(entries.map(([, sha256]) => sha256))];
        // Those this instance knows are taken at once (a redeploy's thousands of unchanged contents:
        // a promise each through mapLimit cost more than the look-up), the others as factsOf reads them.
        const facts = new Map<string, ContentFacts>();
        const unknown: string[] = [];
        for (const sha256 of all) {
          const cached = known.get(sha256, text.has(sha256));
          if (cached) facts.set(sha256, cached);
          else unknown.push(sha256);
        }
        for (const [sha256, f] of await mapLimit(
          unknown,
          CONCURRENCY,
          async (sha256) => [sha256, await factsOf(sha256, sizes.get(sha256)!, text.has(sha256))] as const,
        ).catch(async (error: unknown) => {
          // A base blob read after its version (and then the blob) went: the base's refusal.
          if (base !== null && !(await deploys.holdVersion(db, base.deployment_id))) throw baseGone();
          throw error;
        }))
          facts.set(sha256, f);
        const files = entries.map(([name, sha256]) => ({
          name,
          facts: facts.get(sha256)!,
        }));
        const project = await uploads.commitHeld(
          actor,
          files,
          {
            projectId: deploy.project_id,
            ...(deploy.project_name !== null ? { name: deploy.project_name } : {}),
            ...(deploy.description !== null ? { description: deploy.description } : {}),
            ...(deploy.site_name !== null ? { siteName: deploy.site_name } : {}),
            // The base's contents are leased by nobody: its rows keep them in the store. They are
            // still there when the commit finds the base's row in its own transaction: rows are
            // deleted only with their project, a blob only once no row references it (the sweep
            // and a project's deletion: storage/blob-gate.ts deleteUnused), and on PostgreSQL the
            // row is held (FOR SHARE) until the new rows, which reference the same contents, are
            // committed. A base gone by then refuses the commit; nothing is kept.
            ...(base !== null
              ? {
                  precondition: async (trx: DB) => {
                    if (!(await deploys.holdVersion(trx, base.deployment_id))) throw baseGone();
                  },
                  // The rows the pipeline decides as the base's are copied from it (uploads.ts
                  // writeFileRows): held by the same precondition, they are there to copy.
                  base: {
                    deploymentId: base.deployment_id,
                    files: new Map(baseFiles!.map((f) => [f.path, f])),
                  },
                }
              : {}),
            // The new version's rows, kept for the next deploy built on it.
            committed: (deploymentId, rows) => {
              keepBase(
                deploymentId,
                rows.map((f) => ({
                  path: f.path,
                  sha256: f.sha256,
                  size: f.size,
                  mime_type: f.mimeType,
                  extension: f.extension,
                  download_only: f.downloadOnly ? 1 : 0,
                })),
              );
            },
          },
          meta,
          delivery,
        );
        committed = true;
        return project;
      } finally {
        await release(deploy, committed).catch(() => undefined);
      }
    },

    /**
     * Ends the actor's own deploy before its finish (a client that failed or was stopped): its
     * leases and held bytes go at once, not when it would have expired (docs/decisions/deploys.md
     * "Cancelled deploys"). A deploy gone already (finished, expired, another account's) is 404.
     */
    async cancel(actor: Actor, id: string): Promise<void> {
      const row = await deploys.byId(db, id, actor.id, now());
      if (!row || !(await deploys.take(db, row.id))) throw new NotFound(m.deployNotFound);
      await release(row);
    },

    /** Removes deploys idle or open past their time and never finished (the leftover sweep). */
    async expire(): Promise<number> {
      let removed = 0;
      for (const row of await deploys.expired(db, now())) {
        if (!(await deploys.take(db, row.id))) continue;
        await release(row);
        removed++;
      }
      return removed;
    },
  };
}
export type DeployService = ReturnType<typeof createDeployService>;
