/**
 * Projects and their deployments (versions): upload, new version, metadata edits, deletion,
 * the owner's lists and the detail view. An upload becomes visible only when complete:
 * staging → ingest (validated tree) → blobs → one database transaction.
 */
import {
  type ContentCheckReport,
  format,
  formatBytes,
  type MyProjectStats,
  messages,
  type UploadLimits,
  uploadFields,
  versionFields,
} from '@sitehall/contracts';
import {
  checkSiteContent,
  parseContentCheck,
  riskRankOf,
  type SiteFile,
  siteFileInStore,
  siteFileOnDisk,
  usabilityFindings,
} from '../content-check/index.js';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { MigrationDialect } from '../db/migrations/helpers.js';
import type { Actor } from '../domain/actor.js';
import { Invalid, NotFound, parse, TooLarge, Unauthorized } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { type IngestResult, ingest } from '../ingest/index.js';
import { checkDeclaredLength, type StagedUpload } from '../ingest/staging.js';
import { projectPolicy } from '../policies/project.js';
import { presentProject } from '../presenters/project.js';
import type { SiteUrlOptions } from '../presenters/urls.js';
import * as deploymentFiles from '../repositories/deployment-files.js';
import * as deployments from '../repositories/deployments.js';
import type {
  OwnerFilter,
  ProjectPatch,
  ProjectsRepository,
  ProjectWithOwner,
} from '../repositories/projects.js';
import * as reviewComments from '../repositories/review-comments.js';
import * as uploadKeys from '../repositories/upload-keys.js';
import * as users from '../repositories/users.js';
import type { BlobStore } from '../storage/index.js';
import { zipOfBlobs } from '../storage/zip-blobs.js';
import type { AuditService } from './audit.js';
import type { BlobGate } from './blob-gate.js';
import { eachLimit } from './concurrency.js';
import type { Metrics } from './metrics.js';
import { nameSortKey } from './name-order.js';
import type { QuotaService } from './quota.js';
import type { SettingsService } from './settings.js';

const m = messages.project;

export interface ProjectEvents {
  /** The live deployment of a project changed or went away (caches must forget it). */
  liveChanged(projectId: number): void;
  /** A version was stored and its render queued in the same transaction (docs/render.md). */
  versionStored?(projectId: number): void;
}

/** Queues a version's render with the upload's own transaction, so no stored version misses one. */
export interface RenderQueue {
  enqueue(deploymentId: number, projectId: number, at: string, trx: DB): Promise<void>;
  /** A deleted project's jobs go with it. */
  dropOfProject?(projectId: number, trx: DB): Promise<void>;
}

/** How long a repeated delete of a project the same account deleted is answered as a success. */
export const DELETE_REPEAT_MS = 10 * 60_000;

/** What admitUpload decided before the body was read: the limits, and the project of a new version. */
export interface UploadAdmission {
  limits: UploadLimits;
  project: ProjectWithOwner | null;
  /** The project this account's earlier upload with the same idempotency key made: answered again. */
  replay?: number;
}

/**
 * How an upload's answer is kept (docs/decisions.md "An answer is never lost"): `key`, the
 * client's `Idempotency-Key`, makes a retry answer with the first upload; `signal` aborts when the
 * client is gone, and then nothing is stored.
 */
export interface UploadDelivery {
  key?: string;
  signal?: AbortSignal;
}

/** A retry of an upload whose key the account holds already: its transaction is rolled back. */
class KeyTaken extends Error {}

export function createProjectService(deps: {
  db: DB;
  projects: ProjectsRepository;
  store: BlobStore;
  settings: SettingsService;
  quota: QuotaService;
  audit: AuditService;
  gate: BlobGate;
  urls: SiteUrlOptions;
  events: ProjectEvents;
  metrics: Pick<Metrics, 'timeIngest'>;
  dialect: MigrationDialect;
  /** Queues each stored version's render (docs/render.md). */
  renders?: RenderQueue;
}) {
  const { db, projects, store, settings, quota, audit, gate, urls, events } = deps;

  /** A project the actor may see, else 404 (others' projects look missing). */
  async function visible(actor: Actor, id: number): Promise<ProjectWithOwner> {
    const p = await projects.byId(id);
    if (!p || !projectPolicy.view(actor, p)) throw new NotFound(m.notFound);
    return p;
  }

  /** `account`: whose upload, for the workers' fair share between accounts (domain/fair-slots.ts). */
  async function ingestStaged(
    account: number,
    staged: Pick<StagedUpload, 'files' | 'workDir'>,
    limits: UploadLimits,
    uploadType: 'auto' | 'files' | 'zip',
    held = false,
    signal?: AbortSignal,
  ): Promise<IngestResult> {
    if (staged.files.length === 0) throw new Invalid('files', m.filesRequired);
    return deps.metrics.timeIngest(() =>
      ingest({ files: staged.files, uploadType, limits, workDir: staged.workDir, held, account }, signal),
    );
  }

  /**
   * Moves the ingested files into the blob store and writes the deployment rows, atomically.
   * `held`: the store already holds every file's bytes (a digest deploy), and these are their heads
   * by hash; the content check reads a head when it covers what it wants, else the store.
   */
  async function commitDeployment(
    actor: Actor,
    result: IngestResult,
    target: { projectId: number | null; ownerId: number; name?: string; description?: string | null },
    held?: ReadonlyMap<string, Buffer>,
    delivery: UploadDelivery = {},
  ): Promise<number> {
    delivery.signal?.throwIfAborted();
    await quota.beforeStoring(target.ownerId, result.totalSize);
    // Read while the files are still in the upload's folder; stored with the deployment for review.
    const siteFiles = result.files.map((f) =>
      held ? siteFileHeld(store, f, held.get(f.sha256)) : siteFileOnDisk(f),
    );
    const contentCheck = await checkSiteContent(siteFiles, result.entryFile, {
      rootPathsWork: Boolean(urls.sitesOrigin && urls.sitesSubdomains),
      account: actor.id,
    });
    const hashes = result.files.map((f) => f.sha256);
    try {
      const projectId = await storeAndCommit(
        actor,
        result,
        target,
        contentCheck,
        hashes,
        held !== undefined,
        delivery,
      );
      events.versionStored?.(projectId);
      return projectId;
    } catch (error) {
      if (error instanceof KeyTaken) {
        await gate.deleteUnused(hashes).catch(() => undefined);
        const first = await uploadKeys.find(db, actor.id, delivery.key!, now());
        if (first) return first.project_id;
      }
      // Nothing references what this upload stored: don't leave it for the sweep (a failed
      // cleanup still leaves it to the sweep, and the upload's own error is the answer).
      await gate.deleteUnused(hashes).catch(() => undefined);
      throw error;
    }
  }

  async function storeAndCommit(
    actor: Actor,
    result: IngestResult,
    target: { projectId: number | null; ownerId: number; name?: string; description?: string | null },
    contentCheck: ContentCheckReport,
    hashes: string[],
    held: boolean,
    delivery: UploadDelivery,
  ): Promise<number> {
    // Held files are under the caller's lease until it returns (commitHeldFiles): a second lease
    // of the same thousands of hashes would only be written and deleted again.
    const guarded = (work: () => Promise<number>) => (held ? gate.shared(work) : gate.storing(hashes, work));
    return guarded(async () => {
      // Each distinct blob once, a few at a time: on object storage each file costs a round trip
      // or two, and locally fsyncs in flight together share the file system's journal commits.
      const blobs = new Map(result.files.map((f) => [f.sha256, f.tempFile]));
      if (!held)
        await eachLimit([...blobs], PUT_CONCURRENCY, ([sha256, file]) => store.putFile(file, sha256));
      // The last moment to find the client gone: after this the upload is stored and answered.
      delivery.signal?.throwIfAborted();
      return db.transaction().execute(async (trx) => {
        const at = now();
        await quota.admit(trx, actor, target.ownerId, result.totalSize, at);
        let projectId = target.projectId;
        // The account or project may have been deleted while the upload ran: say so, rather than
        // fail on a foreign key. On PostgreSQL the row is locked until the commit, so a delete
        // waits for this upload (and then removes it too) instead of slipping in between.
        if (projectId === null) {
          if (!(await users.existsForNewRows(trx, actor.id, deps.dialect)))
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
            search_text: searchText(target.name!, target.description ?? null, actor.username),
            name_sort_key: nameSortKey(target.name!),
          });
        } else {
          if (!(await projects.existsForUpload(trx, projectId))) throw new NotFound(m.notFound);
          // A pending version nobody reviewed yet is replaced by the newer one.
          await deployments.supersedePending(trx, projectId);
        }
        const version = await deployments.nextVersion(trx, projectId);
        const deploymentId = await deployments.insert(trx, {
          project_id: projectId,
          version,
          status: 'pending',
          upload_type: result.uploadType,
          upload_source: held ? 'deploy' : (result.archiveFormat ?? 'files'),
          file_count: result.files.length,
          total_size: result.totalSize,
          entry_file: result.entryFile,
          content_check: JSON.stringify(contentCheck),
          content_risk: riskRankOf(contentCheck),
          created_by: actor.id,
          created_at: at,
          reviewed_at: null,
          reviewed_by: null,
          review_comment: null,
        });
        await deploymentFiles.insertMany(trx, deploymentId, result.files, deps.dialect);
        if (delivery.key) {
          const claimed = await uploadKeys.claim(trx, {
            user_id: actor.id,
            idempotency_key: delivery.key,
            project_id: projectId,
            deployment_id: deploymentId,
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
        }
        await projects.update(trx, projectId, patch);
        if (target.projectId !== null) await refreshSearchText(trx, projectId);
        await deps.renders?.enqueue(deploymentId, projectId, at, trx);
        return projectId;
      });
    });
  }

  /** The project of this account's stored upload with this key (made in the last day), if any. */
  async function replayOf(actor: Actor, key: string): Promise<number | undefined> {
    const first = await uploadKeys.find(db, actor.id, key, now());
    return first?.project_id;
  }

  async function refreshSearchText(trx: DB, projectId: number) {
    const p = await projects.byId(projectId, trx);
    if (p) {
      await projects.update(trx, projectId, {
        search_text: searchText(p.name, p.description, p.owner_username),
        name_sort_key: nameSortKey(p.name),
      });
    }
  }

  async function detail(p: ProjectWithOwner) {
    const [latest, live, versions, comments] = await Promise.all([
      p.latest_deployment_id ? deployments.byId(db, p.latest_deployment_id) : undefined,
      p.live_deployment_id ? deployments.byId(db, p.live_deployment_id) : undefined,
      deployments.ofProject(db, p.id),
      reviewComments.ofProject(db, p.id),
    ]);
    const files = latest ? await deploymentFiles.ofDeployment(db, latest.id) : [];
    return presentProject(p, {
      latest,
      live,
      files,
      usability: usabilityFindings(parseContentCheck(latest?.content_check ?? null)),
      deployments: versions,
      reviewComments: comments.map((c) => ({
        ...c,
        reviewer: c.reviewer ?? null,
        deployment_version: c.deployment_version ?? null,
      })),
      urls,
    });
  }

  return {
    visible,
    detail,
    /** The project a stored upload with this key made (a retried deploy's answer). */
    replayOf,

    /**
     * Before an upload's body is read: may the actor upload (a new project, or a new version of
     * this one), and can a body of the declared length fit the limits and the owner's quota? The
     * route then stages the body with the limits returned and passes both to upload/uploadVersion.
     */
    async admitUpload(
      actor: Actor,
      projectId: number | null,
      contentLength: string | undefined,
      key?: string,
    ): Promise<UploadAdmission> {
      let project: ProjectWithOwner | null = null;
      if (projectId !== null) {
        project = await visible(actor, projectId);
        if (!projectPolicy.edit(actor, project)) throw new NotFound(m.notFound);
      }
      const { limits } = await settings.get();
      checkDeclaredLength(contentLength, limits);
      // A retry of an upload that was stored: neither the quota nor the hourly limit is asked again.
      const replay = key ? await replayOf(actor, key) : undefined;
      if (replay !== undefined) return { limits, project, replay };
      await quota.beforeBody(actor, project?.owner_id ?? actor.id, contentLength);
      // A store known to be unreachable could not keep the files: 503 before the body is read.
      store.throwIfDown?.();
      return { limits, project };
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
      try {
        if (admission.replay !== undefined) return detail((await projects.byId(admission.replay))!);
        const fields = parse(uploadFields, staged.fields);
        const result = await ingestStaged(
          actor.id,
          staged,
          limits,
          fields.upload_type,
          false,
          delivery.signal,
        );
        const projectId = await commitDeployment(
          actor,
          result,
          { projectId: null, ownerId: actor.id, name: fields.project_name, description: fields.description },
          undefined,
          delivery,
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
        return await detail((await projects.byId(projectId))!);
      } finally {
        await staged.discard();
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
      try {
        if (!p) throw new NotFound(m.notFound);
        if (admission.replay !== undefined) return detail((await projects.byId(admission.replay))!);
        const fields = parse(versionFields, staged.fields);
        const result = await ingestStaged(
          actor.id,
          staged,
          limits,
          fields.upload_type,
          false,
          delivery.signal,
        );
        await commitDeployment(
          actor,
          result,
          {
            projectId: p.id,
            ownerId: p.owner_id,
            name: fields.project_name,
            description: fields.description,
          },
          undefined,
          delivery,
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
        return await detail((await projects.byId(p.id))!);
      } finally {
        await staged.discard();
      }
    },

    /**
     * Commits a file set that arrived by another way than a multipart body (a digest deploy,
     * services/deploys.ts): the same rules, limits, content check, quota and audit as an upload,
     * and the same answer. The files' bytes are in the blob store already (each file carries its
     * facts, and no temp file); `workDir` is an empty folder of the caller's, which removes it.
     * The caller holds a blob lease on every file's hash until this returns (a deploy's
     * `deploy:{id}`), so that nothing deletes them meanwhile; no other lease is written.
     */
    async commitHeldFiles(
      actor: Actor,
      staged: Pick<StagedUpload, 'files' | 'workDir'>,
      target: { projectId: number | null; name?: string; description?: string },
      meta: RequestMeta,
      delivery: UploadDelivery = {},
    ) {
      const { limits } = await settings.get();
      const p = target.projectId === null ? null : await visible(actor, target.projectId);
      if (p && !projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      const total = staged.files.reduce((sum, f) => sum + f.size, 0);
      if (total > limits.maxUploadBytes) {
        throw new TooLarge(format(m.uploadTooLarge, { size: formatBytes(limits.maxUploadBytes) }), 'files');
      }
      const result = await ingestStaged(actor.id, staged, limits, 'files', true, delivery.signal);
      const heads = new Map(staged.files.flatMap((f) => (f.facts ? [[f.facts.sha256, f.facts.head]] : [])));
      const projectId = await commitDeployment(
        actor,
        result,
        {
          projectId: p?.id ?? null,
          ownerId: p?.owner_id ?? actor.id,
          name: target.name,
          description: target.description,
        },
        heads,
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
      return detail((await projects.byId(projectId))!);
    },

    async updateMeta(
      actor: Actor,
      id: number,
      body: { name?: string; description?: string | null; is_public?: boolean },
      meta: RequestMeta,
    ) {
      const p = await visible(actor, id);
      if (!projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      const patch: ProjectPatch & Record<string, unknown> = { updated_at: now() };
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description || null;
      if (body.is_public !== undefined) patch.is_public = body.is_public ? 1 : 0;
      // The form sends every field: the audit log names only those whose value changed.
      const current: Record<string, unknown> = {
        name: p.name,
        description: p.description,
        is_public: p.is_public,
      };
      const changed = ['name', 'description', 'is_public'].filter(
        (field) => field in patch && patch[field] !== current[field],
      );
      await db.transaction().execute(async (trx) => {
        await projects.update(trx, p.id, patch);
        await refreshSearchText(trx, p.id);
      });
      if (changed.length > 0) {
        await audit.record({
          actor,
          action: 'project.update',
          targetType: 'project',
          targetId: p.id,
          detail: { fields: changed },
          ip: meta.ip,
        });
      }
      if (body.is_public !== undefined) events.liveChanged(p.id);
      return detail((await projects.byId(p.id))!);
    },

    /**
     * Deletes the project, its versions and every blob nothing else uses. Once the rows are gone
     * the answer is a success: blobs that can't be removed now (storage away) are left to the
     * orphan sweep. A repeat by the same account within DELETE_REPEAT_MS (a retry whose first
     * answer was lost) is a success too, found by the first one's audit entry, written in the
     * delete's own transaction (docs/decisions.md "A committed delete answers success").
     */
    async remove(actor: Actor, id: number, meta: RequestMeta) {
      const repeated = (error: unknown) =>
        error instanceof NotFound && audit.deletedRecently(actor.id, id, DELETE_REPEAT_MS);
      let p: Awaited<ReturnType<typeof visible>>;
      try {
        p = await visible(actor, id);
      } catch (error) {
        if (await repeated(error)) return;
        throw error;
      }
      if (!projectPolicy.delete(actor, p)) throw new NotFound(m.notFound);
      let hashes: string[];
      try {
        hashes = await gate.run(async () => {
          const used = await deploymentFiles.hashesOfProject(db, p.id);
          await db.transaction().execute(async (trx) => {
            // A delete that raced this one (PostgreSQL runs them side by side) already took it.
            if (!(await projects.remove(trx, p.id))) throw new NotFound(m.notFound);
            await deps.renders?.dropOfProject?.(p.id, trx);
            await audit.record(
              {
                actor,
                action: 'project.delete',
                targetType: 'project',
                targetId: p.id,
                detail: { name: p.name, owner: p.owner_username },
                ip: meta.ip,
              },
              trx,
            );
          });
          return used;
        });
      } catch (error) {
        if (await repeated(error)) return;
        throw error;
      }
      events.liveChanged(p.id);
      // Committed: what can't be removed now is the sweep's (it finds unreferenced blobs).
      await gate.deleteUnused(hashes).catch(() => undefined);
    },

    /**
     * A streamed zip of the live version (or the newest when none is live), written as it is sent
     * (storage/zip-blobs.ts). A blob that cannot be read (deleted with the project meanwhile, a
     * storage fault) aborts the response; it never ends the process.
     */
    async download(actor: Actor, id: number, meta: RequestMeta) {
      const p = await visible(actor, id);
      if (!projectPolicy.download(actor, p)) throw new NotFound(m.notFound);
      const deploymentId = p.live_deployment_id ?? p.latest_deployment_id;
      if (!deploymentId) throw new NotFound(m.notFound);
      const files = await deploymentFiles.ofDeployment(db, deploymentId);
      // The first file is opened before anything is sent: a store that can't be reached (or a blob
      // gone) is a clean error answer (503, 404) rather than a zip cut off after its first bytes.
      const first = files[0] ? await store.read(files[0].sha256) : undefined;
      try {
        await projects.countDownload(p.id);
        await audit.record({
          actor,
          action: 'project.download',
          targetType: 'project',
          targetId: p.id,
          ip: meta.ip,
        });
      } catch (error) {
        first?.destroy();
        throw error;
      }
      // Made last: nothing may fail between its first read and the route that sends it.
      const zip = zipOfBlobs(
        store,
        files.map((f) => ({
          path: f.path,
          sha256: f.sha256,
          size: Number(f.size),
          compress: COMPRESSIBLE.test(f.mime_type),
        })),
        new Date(p.updated_at),
        first,
      );
      return { stream: zip, filename: `project-${p.id}.zip` };
    },

    async listMine(actor: Actor, q: { status: OwnerFilter; page: number; page_size: number }) {
      const { rows, total } = await projects.listByOwner(actor.id, q.status, q.page, q.page_size);
      const versions = await deployments.byIds(
        db,
        rows.flatMap((r) =>
          [r.latest_deployment_id, r.live_deployment_id].filter((id): id is number => id !== null),
        ),
      );
      const [counts, storage] = await Promise.all([projects.countByStatus(actor.id), quota.usage(actor.id)]);
      const stats: MyProjectStats = {
        total: counts.pending + counts.approved + counts.published + counts.rejected,
        pending: counts.pending,
        reviewed: counts.approved + counts.published + counts.rejected,
        published: counts.approved + counts.published,
      };
      return {
        projects: rows.map((r) =>
          presentProject(r, {
            latest: r.latest_deployment_id ? versions.get(r.latest_deployment_id) : undefined,
            live: r.live_deployment_id ? versions.get(r.live_deployment_id) : undefined,
            urls,
          }),
        ),
        total,
        stats,
        storage,
      };
    },
  };
}
export type ProjectService = ReturnType<typeof createProjectService>;

/** Blobs moved into the store at once by an upload. */
const PUT_CONCURRENCY = 8;

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json)|image\/svg)/;

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

/** Lower-cased name, description and author, for substring search. */
export function searchText(name: string, description: string | null, owner: string): string {
  return `${name}\n${description ?? ''}\n${owner}`.toLowerCase();
}
