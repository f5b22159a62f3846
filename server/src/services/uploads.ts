/**
 * Uploads: from a staged multipart body (or a digest deploy's held files) to a new pending version,
 * under the same rules, limits, content check, quota and audit. An upload becomes visible only
 * when complete: staging → ingest (validated tree) → blobs → one database transaction. Project
 * management (edits, deletion, lists, detail) is services/projects.ts.
 */
import { createHash } from 'node:crypto';
import {
  type ContentCheckReport,
  format,
  formatBytes,
  messages,
  UPLOADS_IN_FLIGHT_MAX,
  type UploadLimits,
  uploadFields,
  versionFields,
} from '@sitehall/contracts';
import {
  checkSiteContent,
  riskRankOf,
  type SiteFile,
  siteFileInStore,
  siteFileOnDisk,
} from '../content-check/index.js';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Dialect as MigrationDialect } from '../db/dialect.js';
import type { Actor } from '../domain/actor.js';
import { eachLimit } from '../domain/concurrency.js';
import { Conflict, Invalid, NotFound, parse, TooLarge, Unauthorized } from '../domain/errors.js';
import { PerAccountInFlight } from '../domain/in-flight.js';
import { nameSortKey } from '../domain/name-order.js';
import type { RequestMeta } from '../domain/request-meta.js';
import type { SiteUrlOptions } from '../domain/site-urls.js';
import {
  type HeldFile,
  type IngestedHeldFile,
  type IngestResult,
  ingest,
  ingestHeld,
} from '../ingest/index.js';
import { checkDeclaredLength, type StagedUpload } from '../ingest/staging.js';
import type { Metrics } from '../metrics/metrics.js';
import { projectPolicy } from '../policies/project.js';
import type { BaseDeploymentFile } from '../repositories/deployment-files.js';
import type { Repositories } from '../repositories/index.js';
import type { ProjectPatch, ProjectsRepository, ProjectWithOwner } from '../repositories/projects.js';
import { isNameRace } from '../repositories/site-names.js';
import { compileSiteRules, SITE_RULES_LIMITS, SiteRulesError, type SiteRulesText } from '../serve/index.js';
import type { BlobGate } from '../storage/blob-gate.js';
import type { BlobStore } from '../storage/index.js';
import type { AuditService } from './audit.js';
import { traceStoreOf } from './content-traces.js';
import type { NotificationService } from './notifications.js';
import {
  type ProjectEvents,
  type ProjectService,
  type RenderQueue,
  refreshSearchText,
  searchText,
} from './projects.js';
import type { QuotaService } from './quota.js';
import type { SettingsService } from './settings.js';
import { nameRaceLost, type SiteNameService } from './site-names.js';

const m = messages.project;

/** Which project an upload adds a version to (null: a new one), and what it changes of it. */
interface UploadTarget {
  projectId: number | null;
  ownerId: number;
  name?: string;
  description?: string | null;
  /** The site's name (docs/decisions/names.md): claimed in the upload's transaction. */
  siteName?: string;
  /** The SPA fallback, set with the upload (docs/product.md "A site's own routing"). */
  spaFallback?: boolean;
  /**
   * Runs in the commit's transaction once the project is known to be there, before any row is
   * written; throws to refuse the commit (a base-version deploy holds its base version there:
   * services/deploys.ts).
   */
  precondition?: (trx: DB) => Promise<void>;
  /**
   * The version this one is built on, with its rows by path (a base-version deploy): rows the
   * pipeline decided exactly as the base's are copied by the database, not written from JSON.
   */
  base?: VersionBase;
  /**
   * Told the new version's row id and its files once its transaction has committed: its rows are
   * those files as they are (writeFileRows). A digest deploy keeps them to build the next version
   * on (services/deploys.ts). Must not throw: the upload is committed by then.
   */
  committed?: (deploymentId: number, files: readonly IngestedHeldFile[]) => void;
}

/** A version a new one is built on: its row id and its file rows by path. */
export interface VersionBase {
  deploymentId: number;
  files: ReadonlyMap<string, BaseDeploymentFile>;
}

/** What admitUpload decided before the body was read: the limits, and the project of a new version. */
export interface UploadAdmission {
  limits: UploadLimits;
  project: ProjectWithOwner | null;
  /** The project this account's earlier upload with the same idempotency key made: answered again. */
  replay?: number;
  /** That upload's payload (payloadOf; '' when not recorded), compared once the body is staged. */
  replayPayload?: string;
  /** Ends this upload's place among the account's uploads under way (UPLOADS_IN_FLIGHT_MAX). */
  done?: () => void;
}

/**
 * How an upload's answer is kept (docs/decisions/review.md "An answer is never lost"): `key`, the
 * client's `Idempotency-Key`, makes a retry answer with the first upload; `signal` aborts when the
 * client is gone, and then nothing is stored.
 */
export interface UploadDelivery {
  key?: string;
  /** The method and path the key came with: a key answers again only the request it was first sent with. */
  request?: string;
  /** The fingerprint of the upload's fields and files (payloadOf): a key answers again only the same upload. */
  payload?: string;
  signal?: AbortSignal;
}

/** A retry of an upload whose key the account holds already: its transaction is rolled back. */
class KeyTaken extends Error {}

/** What the upload pipeline uses. */
export interface UploadDeps {
  db: DB;
  projects: ProjectsRepository;
  /** The tables a version is written to besides projects (repositories/index.ts). */
  repos: Pick<Repositories, 'deployments' | 'deploymentFiles' | 'uploadKeys' | 'users'>;
  store: BlobStore;
  settings: Pick<SettingsService, 'get'>;
  quota: Pick<QuotaService, 'beforeBody' | 'beforeStoring' | 'admit'>;
  audit: Pick<AuditService, 'record'>;
  gate: Pick<BlobGate<DB>, 'storing' | 'shared' | 'deleteUnused' | 'lease' | 'release'>;
  urls: SiteUrlOptions;
  /** Sites live at the root of their own host (domain/site-urls.ts `sitesAtHostRoot`): `/x` links work. */
  sitesAtRoot?: boolean;
  events: Pick<ProjectEvents, 'versionStored' | 'renamed'>;
  /** Who may take which site name (docs/decisions/names.md). */
  siteNames: Pick<SiteNameService, 'check' | 'claim'>;
  metrics: Pick<Metrics, 'timeIngest'>;
  dialect: MigrationDialect;
  /** Queues each stored version's render (docs/render.md). */
  renders?: Pick<RenderQueue, 'enqueue'>;
  /** Tells the administrators of a version waiting for review (docs/notifications.md). */
  notifications?: Pick<NotificationService, 'notify' | 'delivered'>;
  /** Which project an actor may see, and the detail an upload answers with (services/projects.ts). */
  lookup: Pick<ProjectService, 'visible' | 'detail'>;
}

/**
 * What an upload brings: files a multipart body staged on disk, or contents the blob store holds
 * already (a digest deploy, services/deploys.ts), named with their facts.
 */
export type UploadInput =
  | {
      kind: 'staged';
      staged: Pick<StagedUpload, 'files' | 'workDir'>;
      uploadType: 'auto' | 'files' | 'zip';
      /** Contents the store holds for the account, leased by the caller: not extracted again. */
      held?: readonly string[];
      /** Which other contents the store holds, leased by the caller (storedContents). */
      stored?: (hashes: string[]) => Promise<string[]>;
    }
  | { kind: 'held'; files: readonly HeldFile[] };

/** An input once ingested: staged files still to store, or held ones with their heads by hash. */
type Ingested =
  | { kind: 'staged'; result: IngestResult }
  | { kind: 'held'; result: IngestResult<IngestedHeldFile>; heads: ReadonlyMap<string, Buffer> };

/** `account`: whose upload, for the workers' fair share between accounts (domain/fair-slots.ts). */
async function ingestInput(
  deps: UploadDeps,
  account: number,
  input: UploadInput,
  limits: UploadLimits,
  signal?: AbortSignal,
): Promise<Ingested> {
  if (input.kind === 'held' ? input.files.length === 0 : input.staged.files.length === 0)
    throw new Invalid('files', m.filesRequired);
  if (input.kind === 'held') {
    const result = ingestHeld(input.files, limits, signal);
    return { kind: 'held', result, heads: new Map(input.files.map((f) => [f.facts.sha256, f.facts.head])) };
  }
  const { staged, uploadType, held, stored } = input;
  const result = await deps.metrics.timeIngest(() =>
    ingest(
      {
        files: staged.files,
        uploadType,
        limits,
        workDir: staged.workDir,
        account,
        ...(held ? { held } : {}),
        ...(stored ? { stored } : {}),
      },
      signal,
    ),
  );
  return { kind: 'staged', result };
}

/**
 * Moves the ingested files into the blob store and writes the deployment rows, atomically. Held
 * files are in the store already; the content check reads a held file's head when it covers what
 * it wants, else the store.
 */
async function commitDeployment(
  deps: UploadDeps,
  actor: Actor,
  ingested: Ingested,
  target: UploadTarget,
  delivery: UploadDelivery = {},
): Promise<number> {
  const { db, store, quota, gate, events } = deps;
  const { result } = ingested;
  delivery.signal?.throwIfAborted();
  await quota.beforeStoring(target.ownerId, result.totalSize);
  // Read while the files are still in the upload's folder; stored with the deployment for review.
  const siteFiles =
    ingested.kind === 'held'
      ? ingested.result.files.map((f) => siteFileHeld(store, f, ingested.heads.get(f.sha256)))
      : ingested.result.files.map((f) => (f.held ? siteFileInStore(store, f) : siteFileOnDisk(f)));
  // A bad line of _redirects or _headers refuses the upload, naming the line (nothing stored yet).
  const siteRules = await checkedSiteRules(siteFiles);
  const contentCheck = await checkSiteContent(siteFiles, result.entryFile, {
    rootPathsWork: deps.sitesAtRoot ?? false,
    account: actor.id,
    store: traceStoreOf(db),
  });
  const hashes = result.files.map((f) => f.sha256);
  try {
    const projectId = await storeAndCommit(
      deps,
      actor,
      ingested,
      target,
      { contentCheck, siteRules },
      hashes,
      delivery,
    );
    events.versionStored?.(projectId);
    // A live site's name or SPA fallback changed with the version: serving reads the project again.
    if ((target.siteName !== undefined || target.spaFallback !== undefined) && target.projectId !== null)
      events.renamed?.(projectId);
    deps.notifications?.delivered();
    return projectId;
  } catch (error) {
    if (error instanceof KeyTaken) {
      await gate.deleteUnused(hashes).catch(() => undefined);
      const first = await replayOf(deps, actor, delivery.key!, delivery.request, delivery.payload);
      if (first !== undefined) return first;
    }
    // Nothing references what this upload stored: don't leave it for the sweep (a failed
    // cleanup still leaves it to the sweep, and the upload's own error is the answer).
    await gate.deleteUnused(hashes).catch(() => undefined);
    throw error;
  }
}

async function storeAndCommit(
  deps: UploadDeps,
  actor: Actor,
  ingested: Ingested,
  target: UploadTarget,
  facts: { contentCheck: ContentCheckReport; siteRules: string | null },
  hashes: string[],
  delivery: UploadDelivery,
): Promise<number> {
  const { db, projects, store, quota, gate } = deps;
  const { contentCheck, siteRules } = facts;
  const { result } = ingested;
  // Held files are under the caller's lease until it returns (commitHeldFiles): a second lease
  // of the same thousands of hashes would only be written and deleted again.
  const guarded = (work: () => Promise<number>) =>
    ingested.kind === 'held' ? gate.shared(work) : gate.storing(hashes, work);
  return guarded(async () => {
    if (ingested.kind === 'staged') {
      // Each distinct blob once, a few at a time: on object storage each file costs a round trip
      // or two, and locally fsyncs in flight together share the file system's journal commits.
      // Held ones are the store's already (under the caller's lease): nothing to move.
      const blobs = new Map(ingested.result.files.filter((f) => !f.held).map((f) => [f.sha256, f.tempFile]));
      await eachLimit([...blobs], PUT_CONCURRENCY, ([sha256, file]) => store.putFile(file, sha256));
    }
    // The last moment to find the client gone: after this the upload is stored and answered.
    delivery.signal?.throwIfAborted();
    let committedId: number | undefined;
    const projectId = await db
      .transaction()
      .execute(async (trx) => {
        const at = now();
        await quota.admit(trx, actor, target.ownerId, result.totalSize, at);
        let projectId = target.projectId;
        // The account or project may have been deleted while the upload ran: say so, rather than
        // fail on a foreign key. On PostgreSQL the row is locked until the commit, so a delete
        // waits for this upload (and then removes it too) instead of slipping in between.
        if (projectId === null) {
          if (!(await deps.repos.users.existsForNewRows(trx, actor.id, deps.dialect)))
            throw new Unauthorized(messages.common.sessionExpired);
          projectId = await projects.insert(trx, {
            owner_id: actor.id,
            name: target.name!,
            description: target.description || null,
            status: 'pending',
            is_public: 1,
            live_deployment_id: null,
            latest_deployment_id: null,
            featured: 0,
            view_count: 0,
            download_count: 0,
            approved_at: null,
            approved_by: null,
            published_at: null,
            created_at: at,
            updated_at: at,
            search_text: searchText(target.name!, target.description ?? null, actor.username, null),
            name_sort_key: nameSortKey(target.name!),
            ...(target.spaFallback !== undefined ? { spa_fallback: target.spaFallback ? 1 : 0 } : {}),
          });
        } else {
          if (!(await projects.existsForUpload(trx, projectId))) throw new NotFound(m.notFound);
          // A pending version nobody reviewed yet is replaced by the newer one.
          await deps.repos.deployments.supersedePending(trx, projectId);
        }
        await target.precondition?.(trx);
        if (target.siteName !== undefined) await deps.siteNames.claim(trx, projectId, target.siteName, at);
        const version = await deps.repos.deployments.nextVersion(trx, projectId);
        const deploymentId = await deps.repos.deployments.insert(trx, {
          project_id: projectId,
          version,
          status: 'pending',
          upload_type: result.uploadType,
          upload_source: ingested.kind === 'held' ? 'deploy' : (result.archiveFormat ?? 'files'),
          file_count: result.files.length,
          total_size: result.totalSize,
          entry_file: result.entryFile,
          content_check: JSON.stringify(contentCheck),
          content_risk: riskRankOf(contentCheck),
          site_rules: siteRules,
          created_by: actor.id,
          created_at: at,
          reviewed_at: null,
          reviewed_by: null,
          review_comment: null,
        });
        await writeFileRows(deps, trx, deploymentId, result.files, target.base);
        committedId = deploymentId;
        if (delivery.key) {
          const claimed = await deps.repos.uploadKeys.claim(trx, {
            user_id: actor.id,
            idempotency_key: delivery.key,
            project_id: projectId,
            deployment_id: deploymentId,
            request: delivery.request ?? '',
            payload: delivery.payload ?? '',
            created_at: at,
          });
          if (!claimed) throw new KeyTaken();
        }
        const patch: ProjectPatch = {
          latest_deployment_id: deploymentId,
          status: 'pending',
          updated_at: at,
        };
        if (target.projectId !== null) {
          if (target.name !== undefined) patch.name = target.name;
          if (target.description !== undefined) patch.description = target.description || null;
          if (target.spaFallback !== undefined) patch.spa_fallback = target.spaFallback ? 1 : 0;
        }
        await projects.update(trx, projectId, patch);
        // A site name claimed above is searched too (written with the project's search text).
        if (target.projectId !== null || target.siteName !== undefined)
          await refreshSearchText(projects, trx, projectId);
        await deps.renders?.enqueue(trx, deploymentId, projectId, at);
        await deps.notifications?.notify(trx, {
          kind: 'upload_pending',
          actorId: actor.id,
          projectId,
          projectName: target.name ?? (await projects.byId(trx, projectId))?.name ?? '',
          version,
        });
        return projectId;
      })
      .catch((error: unknown) => {
        // A concurrent claim of the same name won (PostgreSQL): the same 409 as the check's.
        if (target.siteName !== undefined && isNameRace(error)) throw nameRaceLost(target.siteName);
        throw error;
      });
    if (committedId !== undefined) target.committed?.(committedId, result.files);
    return projectId;
  });
}

/**
 * The contents of the project's newest version, leased until `release` (docs/decisions/uploads.md
 * "Re-uploads write only new contents"): a re-upload's unchanged files need not be extracted to
 * disk again. Only those the store still holds once the lease is written, so none can go before
 * the commit; none at all without a store that tells sizes cheaply (a local disk).
 */
async function heldContents(
  deps: Pick<UploadDeps, 'db' | 'repos' | 'store' | 'gate'>,
  project: { latest_deployment_id: number | null },
): Promise<{ hashes: string[]; release(): Promise<void> } | undefined> {
  const { db, store, gate } = deps;
  if (project.latest_deployment_id === null || !store.sizes) return undefined;
  const hashes = await deps.repos.deploymentFiles.hashesOfDeployment(db, project.latest_deployment_id);
  if (hashes.length === 0) return undefined;
  const lease = await gate.lease(hashes);
  try {
    const sizes = await store.sizes(hashes);
    return { hashes: hashes.filter((h) => sizes.has(h)), release: () => gate.release(lease) };
  } catch (error) {
    await gate.release(lease);
    throw error;
  }
}

/**
 * Which of a zip's contents the store holds already, whoever stored them (docs/decisions/uploads.md
 * "Contents another upload stored"): the ingest asks batch by batch once it has hashed them from
 * the zip's own bytes, so nothing is taken by hash alone. A content counts when a version
 * references it and the store holds it once the lease is written, so none can go before the
 * commit; `release` drops the leases, and a question answered after it leases nothing. Only for
 * a store that tells sizes cheaply (a local disk).
 */
function storedContents(
  deps: Pick<UploadDeps, 'db' | 'repos' | 'store' | 'gate'>,
): { stored(hashes: string[]): Promise<string[]>; release(): Promise<void> } | undefined {
  const { db, store, gate } = deps;
  if (!store.sizes) return undefined;
  const sizes = store.sizes.bind(store);
  const leases: string[] = [];
  let released = false;
  return {
    async stored(hashes) {
      const known = await deps.repos.deploymentFiles.referenced(db, hashes);
      if (known.length === 0 || released) return [];
      const lease = await gate.lease(known);
      if (released) {
        await gate.release(lease);
        return [];
      }
      leases.push(lease);
      const held = await sizes(known);
      return known.filter((h) => held.has(h));
    },
    async release() {
      released = true;
      await Promise.all(leases.splice(0).map((lease) => gate.release(lease)));
    },
  };
}

/** This account's stored upload with this key (made in the last day), if any, for this request. */
async function firstUpload(
  deps: Pick<UploadDeps, 'db' | 'repos'>,
  actor: Actor,
  key: string,
  request: string | undefined,
) {
  const first = await deps.repos.uploadKeys.find(deps.db, actor.id, key, now());
  // The key answered another request (a new project's upload, another version, another deploy's
  // finish): this one is not its retry ('' is a key kept from before requests were recorded).
  if (first && first.request !== '' && request !== undefined && first.request !== request)
    throw new Conflict(m.idempotencyKeyReused);
  return first;
}

/**
 * Refuses a retry whose payload is not the first upload's: with other files or fields it is
 * another upload, and the first's answer would name a version without what was sent ('' is a key
 * kept from before migration 043, or a body not read).
 */
function samePayload(recorded: string, payload: string | undefined): void {
  if (recorded !== '' && payload !== undefined && recorded !== payload)
    throw new Conflict(m.idempotencyKeyOtherPayload);
}

/**
 * The project of this account's stored upload with this key (made in the last day), if any.
 * `payload`, when the body has been read (payloadOf), must be the first upload's too.
 */
export async function replayOf(
  deps: Pick<UploadDeps, 'db' | 'repos'>,
  actor: Actor,
  key: string,
  request: string | undefined,
  payload?: string,
): Promise<number | undefined> {
  const first = await firstUpload(deps, actor, key, request);
  if (!first) return undefined;
  samePayload(first.payload, payload);
  return first.project_id;
}

/**
 * The fingerprint of what an upload sent: its form fields, and each file's name, size and SHA-256
 * as staging took them, in any order and whatever multipart boundary the client chose. A retry of
 * the same upload has the same one (docs/decisions/review.md "An answer is never lost").
 */
export function payloadOf(staged: Pick<StagedUpload, 'fields' | 'files'>): string {
  const fields = Object.entries(staged.fields)
    .map((field) => JSON.stringify(field))
    .sort();
  const files = staged.files.map((f) => JSON.stringify([f.name, f.size, f.facts.sha256])).sort();
  return createHash('sha256')
    .update(JSON.stringify([fields, files]))
    .digest('hex');
}

export function createUploadService(deps: UploadDeps) {
  /** The delivery with the staged upload's fingerprint, when it has a key to record it with. */
  const withPayload = (delivery: UploadDelivery, staged: StagedUpload): UploadDelivery =>
    delivery.key ? { ...delivery, payload: payloadOf(staged) } : delivery;
  const inFlight = new PerAccountInFlight(UPLOADS_IN_FLIGHT_MAX, (n) =>
    format(m.tooManyUploadsInFlight, { n }),
  );
  const { db, projects, store, settings, quota, audit } = deps;
  const { visible, detail } = deps.lookup;
  /**
   * The answer of a stored upload: its project as it is now. Deleted since the commit (its
   * owner's other tab, an admin), it is gone all the same: 404, not the detail of nothing.
   */
  const answerOf = async (projectId: number, opts?: { files?: boolean }) => {
    const p = await projects.byId(db, projectId);
    if (!p) throw new NotFound(m.notFound);
    return detail(p, opts);
  };
  return {
    /**
     * The answer of this account's stored deploy with this key, if there is one (a retried finish's):
     * as commitHeld answers, without the files.
     */
    async replay(actor: Actor, delivery: UploadDelivery) {
      if (!delivery.key) return undefined;
      const projectId = await replayOf(deps, actor, delivery.key, delivery.request);
      return projectId === undefined ? undefined : detail(await visible(actor, projectId), { files: false });
    },

    /** Refuses (409) a site name another project holds: a deploy asks when it starts. */
    checkSiteName: (name: string, projectId: number | null) => deps.siteNames.check(name, projectId),

    /**
     * The project a deploy would add a version to, when the actor may add one (else 404): its owner
     * only, as for an upload's new version and the finish's commit. An admin sees others' projects,
     * but a deploy it began there could never finish, while its files counted against the owner's
     * quota (outside review r5).
     */
    async target(actor: Actor, projectId: number) {
      const p = await visible(actor, projectId);
      if (!projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      return p;
    },

    /**
     * Before an upload's body is read: may the actor upload (a new project, or a new version of
     * this one), and can a body of the declared length fit the limits and the owner's quota? The
     * route then stages the body with the limits returned and passes both to upload/uploadVersion.
     */
    async admitUpload(
      actor: Actor,
      projectId: number | null,
      contentLength: string | undefined,
      /** The client's Idempotency-Key and what it came with: a retry of a stored upload is its answer. */
      delivery: UploadDelivery = {},
    ): Promise<UploadAdmission> {
      let project: ProjectWithOwner | null = null;
      if (projectId !== null) {
        project = await visible(actor, projectId);
        if (!projectPolicy.edit(actor, project)) throw new NotFound(m.notFound);
      }
      const { limits } = await settings.get();
      checkDeclaredLength(contentLength, limits);
      // A retry of an upload that was stored: neither the quota nor the hourly limit is asked again.
      const first = delivery.key ? await firstUpload(deps, actor, delivery.key, delivery.request) : undefined;
      if (first) return { limits, project, replay: first.project_id, replayPayload: first.payload };
      await quota.beforeBody(actor, project?.owner_id ?? actor.id, contentLength);
      // A store known to be unreachable could not keep the files: 503 before the body is read.
      store.throwIfDown?.();
      // Last, so nothing refused after it holds a place; the route ends it when the upload ends.
      return { limits, project, done: inFlight.begin(actor.id) };
    },

    /** A new project from a staged upload, which is discarded whatever happens. */
    async upload(
      actor: Actor,
      admission: UploadAdmission,
      staged: StagedUpload,
      meta: RequestMeta,
      delivery: UploadDelivery = {},
    ) {
      const { limits } = admission;
      let others: ReturnType<typeof storedContents>;
      try {
        const sent = withPayload(delivery, staged);
        if (admission.replay !== undefined) {
          // A retry: admitUpload found the key before the body; only now can the payloads be compared.
          samePayload(admission.replayPayload ?? '', sent.payload);
          return answerOf(admission.replay);
        }
        const fields = parse(uploadFields, staged.fields);
        // A name someone holds is refused before the files are read; the commit claims it.
        if (fields.site_name !== undefined) await deps.siteNames.check(fields.site_name, null);
        // A zip of contents others stored (a well-known library): those are not extracted again.
        if (isSingleArchive(staged) && fields.upload_type !== 'files') others = storedContents(deps);
        const input: UploadInput = {
          kind: 'staged',
          staged,
          uploadType: fields.upload_type,
          ...(others ? { stored: others.stored } : {}),
        };
        const ingested = await ingestInput(deps, actor.id, input, limits, delivery.signal);
        const { result } = ingested;
        const projectId = await commitDeployment(
          deps,
          actor,
          ingested,
          {
            projectId: null,
            ownerId: actor.id,
            name: fields.project_name,
            description: fields.description,
            ...(fields.site_name !== undefined ? { siteName: fields.site_name } : {}),
            ...(fields.spa_fallback !== undefined ? { spaFallback: fields.spa_fallback } : {}),
          },
          sent,
        );
        await audit.record({
          actor,
          action: 'project.upload',
          targetType: 'project',
          targetId: projectId,
          detail: {
            files: result.files.length,
            bytes: result.totalSize,
            type: result.archiveFormat ?? result.uploadType,
          },
          ip: meta.ip,
        });
        // Awaited here: a failure must reach the caller, not wait unhandled while finally runs.
        return await answerOf(projectId);
      } finally {
        await staged.discard();
        await others?.release();
      }
    },

    /** A new version of the files: a new pending deployment while the live one keeps serving. */
    async uploadVersion(
      actor: Actor,
      admission: UploadAdmission,
      staged: StagedUpload,
      meta: RequestMeta,
      delivery: UploadDelivery = {},
    ) {
      const { limits, project: p } = admission;
      let held: Awaited<ReturnType<typeof heldContents>>;
      let others: ReturnType<typeof storedContents>;
      try {
        if (!p) throw new NotFound(m.notFound);
        const sent = withPayload(delivery, staged);
        if (admission.replay !== undefined) {
          // A retry: admitUpload found the key before the body; only now can the payloads be compared.
          samePayload(admission.replayPayload ?? '', sent.payload);
          return answerOf(admission.replay);
        }
        const fields = parse(versionFields, staged.fields);
        if (fields.site_name !== undefined) await deps.siteNames.check(fields.site_name, p.id);
        // A zip of this project's files again: what its newest version holds is not extracted.
        // What other versions (any account's) hold is asked about as the zip is read.
        if (isSingleArchive(staged) && fields.upload_type !== 'files') {
          held = await heldContents(deps, p);
          others = storedContents(deps);
        }
        const input: UploadInput = {
          kind: 'staged',
          staged,
          uploadType: fields.upload_type,
          ...(held ? { held: held.hashes } : {}),
          ...(others ? { stored: others.stored } : {}),
        };
        const ingested = await ingestInput(deps, actor.id, input, limits, delivery.signal);
        const { result } = ingested;
        await commitDeployment(
          deps,
          actor,
          ingested,
          {
            projectId: p.id,
            ownerId: p.owner_id,
            name: fields.project_name,
            description: fields.description,
            ...(fields.site_name !== undefined ? { siteName: fields.site_name } : {}),
            ...(fields.spa_fallback !== undefined ? { spaFallback: fields.spa_fallback } : {}),
          },
          sent,
        );
        await audit.record({
          actor,
          action: 'project.new_version',
          targetType: 'project',
          targetId: p.id,
          detail: { files: result.files.length, bytes: result.totalSize },
          ip: meta.ip,
        });
        // Awaited here: a failure must reach the caller, not wait unhandled while finally runs.
        return await answerOf(p.id);
      } finally {
        await staged.discard();
        await held?.release();
        await others?.release();
      }
    },

    /**
     * Commits contents the blob store holds already (a digest deploy, services/deploys.ts): the same
     * rules, limits, content check, quota and audit as an upload, and the same answer. Each file
     * carries its facts; nothing is read from disk or stored again. The caller holds a blob lease on
     * every file's hash until this returns (a deploy's `deploy:{id}`), so that nothing deletes them
     * meanwhile; no other lease is written.
     */
    async commitHeld(
      actor: Actor,
      files: readonly HeldFile[],
      target: {
        projectId: number | null;
        name?: string;
        description?: string;
        siteName?: string;
        precondition?: (trx: DB) => Promise<void>;
        base?: VersionBase;
        committed?: UploadTarget['committed'];
      },
      meta: RequestMeta,
      delivery: UploadDelivery = {},
    ) {
      const { limits } = await settings.get();
      const p = target.projectId === null ? null : await visible(actor, target.projectId);
      if (p && !projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      if (target.siteName !== undefined) await deps.siteNames.check(target.siteName, p?.id ?? null);
      const total = files.reduce((sum, f) => sum + f.facts.size, 0);
      if (total > limits.maxUploadBytes) {
        throw new TooLarge(format(m.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }), 'files');
      }
      const ingested = await ingestInput(deps, actor.id, { kind: 'held', files }, limits, delivery.signal);
      const { result } = ingested;
      const projectId = await commitDeployment(
        deps,
        actor,
        ingested,
        {
          projectId: p?.id ?? null,
          ownerId: p?.owner_id ?? actor.id,
          name: target.name,
          description: target.description,
          ...(target.siteName !== undefined ? { siteName: target.siteName } : {}),
          ...(target.precondition ? { precondition: target.precondition } : {}),
          ...(target.base ? { base: target.base } : {}),
          ...(target.committed ? { committed: target.committed } : {}),
        },
        delivery,
      );
      await audit.record({
        actor,
        action: p ? 'project.new_version' : 'project.upload',
        targetType: 'project',
        targetId: projectId,
        detail: { files: result.files.length, bytes: result.totalSize, type: 'deploy' },
        ip: meta.ip,
      });
      // Without the files: the client sent them (docs/decisions/deploys.md "The finish's answer").
      return answerOf(projectId, { files: false });
    },
  };
}
export type UploadService = ReturnType<typeof createUploadService>;

/**
 * A new version's file rows. Built on a base (a base-version deploy), a row the pipeline decided
 * exactly as the base's row of the same path (content, size, type, extension, download-only flag:
 * compared here, not assumed, since the settings of the moment decide type and flag) is copied by
 * the database; the others, and every row when most differ, are written from the result
 * (docs/decisions/deploys.md "Base-version deploys"). Either way the rows are the result's.
 */
async function writeFileRows(
  deps: UploadDeps,
  trx: DB,
  deploymentId: number,
  files: readonly IngestedHeldFile[],
  base: VersionBase | undefined,
): Promise<void> {
  const rows = deps.repos.deploymentFiles;
  if (!base) return rows.insertMany(trx, deploymentId, files, deps.dialect);
  const fresh: IngestedHeldFile[] = [];
  const copied = new Set<string>();
  for (const f of files) {
    const b = base.files.get(f.path);
    if (
      b !== undefined &&
      b.sha256 === f.sha256 &&
      b.size === f.size &&
      b.mime_type === f.mimeType &&
      b.extension === f.extension &&
      b.download_only === (f.downloadOnly ? 1 : 0)
    )
      copied.add(f.path);
    else fresh.push(f);
  }
  if (copied.size < fresh.length) return rows.insertMany(trx, deploymentId, files, deps.dialect);
  const except = [...base.files.keys()].filter((path) => !copied.has(path));
  await rows.copyFromBase(trx, deploymentId, base.deploymentId, except, deps.dialect);
  await rows.insertMany(trx, deploymentId, fresh, deps.dialect);
}

/** Whether an upload is one file that may be an archive (only then are held contents looked up). */
function isSingleArchive(staged: Pick<StagedUpload, 'files'>): boolean {
  return staged.files.length === 1 && /\.zip$/i.test(staged.files[0]!.name);
}

/** Blobs moved into the store at once by an upload. */
const PUT_CONCURRENCY = 8;

/**
 * The version's _redirects and _headers (at the root of the tree), checked, as the JSON stored in
 * deployments.site_rules; null when it has neither. A bad line is a 400 naming the file and line.
 */
async function checkedSiteRules(files: readonly SiteFile[]): Promise<string | null> {
  const text: SiteRulesText = {};
  for (const f of files) {
    const key = f.path === '_redirects' ? 'redirects' : f.path === '_headers' ? 'headers' : null;
    if (!key) continue;
    if (f.size > SITE_RULES_LIMITS.maxFileBytes) {
      throw new Invalid('files', `${f.path}：文件太大，最多 ${SITE_RULES_LIMITS.maxFileBytes / 1024} KB`);
    }
    try {
      text[key] = new TextDecoder('utf-8', { fatal: true }).decode(await f.read(f.size));
    } catch {
      throw new Invalid('files', `${f.path}：文件不是 UTF-8 文本`);
    }
  }
  if (text.redirects === undefined && text.headers === undefined) return null;
  try {
    if (!compileSiteRules(text)) return null;
  } catch (err) {
    if (err instanceof SiteRulesError) throw new Invalid('files', err.message);
    throw err;
  }
  return JSON.stringify(text);
}

/** A stored file for the content check, read from its known head when that covers the request. */
function siteFileHeld(
  store: BlobStore,
  f: { path: string; size: number; extension: string; sha256: string },
  head: Buffer | undefined,
): SiteFile {
  const inStore = siteFileInStore(store, f);
  return {
    ...inStore,
    async read(maxBytes) {
      // A copy: the check may hand its bytes' memory over to its worker, and the head is kept.
      if (head && (maxBytes <= head.length || head.length >= f.size))
        return Buffer.from(head.subarray(0, maxBytes));
      return inStore.read(maxBytes);
    },
  };
}
