/**
 * Project management: metadata edits, deletion, the download, the owner's lists and the detail
 * view. Uploads (a new project, a new version) are services/uploads.ts.
 */
import {
  countOfFilter,
  DOWNLOADS_IN_FLIGHT_MAX,
  format,
  type MyProjectStats,
  messages,
  type OwnerFilter,
} from '@sitehall/contracts';
import { parseContentCheck, reportAsServed, usabilityFindings } from '../content-check/index.js';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { DeploymentRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { NotFound } from '../domain/errors.js';
import { PerAccountInFlight } from '../domain/in-flight.js';
import { nameSortKey } from '../domain/name-order.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { projectPolicy } from '../policies/project.js';
import type { Repositories } from '../repositories/index.js';
import type { ProjectPatch, ProjectsRepository, ProjectWithOwner } from '../repositories/projects.js';
import { isNameRace } from '../repositories/site-names.js';
import type { BlobGate } from '../storage/blob-gate.js';
import type { BlobStore } from '../storage/index.js';
import { zipOfBlobs } from '../storage/zip-blobs.js';
import type { AuditService } from './audit.js';
import type { NotificationService } from './notifications.js';
import type { QuotaService } from './quota.js';
import { answersDeepLinks } from './site-index.js';
import { nameRaceLost, type SiteNameService } from './site-names.js';

const m = messages.project;

export interface ProjectEvents {
  /** The live deployment of a project changed or went away (caches must forget it). */
  liveChanged(projectId: number): void;
  /** A version was stored and its render queued in the same transaction (docs/render.md). */
  versionStored?(projectId: number): void;
  /** The site's name changed: the serving caches forget the old one (docs/decisions/names.md). */
  renamed?(projectId: number): void;
}

/** Queues a version's render with the upload's own transaction, so no stored version misses one. */
export interface RenderQueue {
  enqueue(trx: DB, deploymentId: number, projectId: number, at: string): Promise<void>;
  /** A deleted project's jobs go with it. */
  dropOfProject?(trx: DB, projectId: number): Promise<void>;
}

/** How long a repeated delete of a project the same account deleted is answered as a success. */
export const DELETE_REPEAT_MS = 10 * 60_000;

export function createProjectService(deps: {
  db: DB;
  repos: Pick<
    Repositories,
    'projects' | 'deployments' | 'deploymentFiles' | 'reviewComments' | 'siteNames' | 'users'
  >;
  store: BlobStore;
  quota: Pick<QuotaService, 'usage'>;
  audit: AuditService;
  gate: Pick<BlobGate<DB>, 'run' | 'deleteUnused'>;
  events: Pick<ProjectEvents, 'liveChanged' | 'renamed'>;
  /** Who may take which site name (docs/decisions/names.md). */
  siteNames: Pick<SiteNameService, 'claim'>;
  /** A deleted project's render jobs go with it (docs/render.md). */
  renders?: Pick<RenderQueue, 'dropOfProject'>;
  /** Sites live at the root of their own host (domain/site-urls.ts `sitesAtHostRoot`). */
  sitesAtRoot?: boolean;
  /** An owner is told when an admin deletes the project (docs/notifications.md). */
  notifications?: Pick<NotificationService, 'notify' | 'delivered'>;
}) {
  const { db, store, quota, audit, gate, events } = deps;
  const { projects, deployments, deploymentFiles, reviewComments } = deps.repos;

  /** A project the actor may see, else 404 (others' projects look missing). */
  async function visible(actor: Actor, id: number): Promise<ProjectWithOwner> {
    const p = await projects.byId(db, id);
    if (!p || !projectPolicy.view(actor, p)) throw new NotFound(m.notFound);
    return p;
  }

  /**
   * What a project's detail is made of (presenters/project.ts `presentProjectDetail`, called by the
   * routes with the viewer): the newest and live version, the newest one's files and usability
   * findings, every version and the review history. `files: false` leaves the files out (a
   * digest deploy's finish: the client has them, and a 5,000-file site's rows cost more to read and
   * send than the rest of its redeploy's answer).
   */
  /**
   * The newest version's usability findings for its owner; a client-side router's is dropped while
   * the site answers deep links anyway (the SPA fallback, or a 200 rewrite of its own _redirects).
   */
  function ownersFindings(p: ProjectWithOwner, latest: DeploymentRow | undefined) {
    const report = parseContentCheck(latest?.content_check ?? null);
    if (!latest || !report) return [];
    const served = { sitesAtRoot: deps.sitesAtRoot ?? false, answersDeepLinks: answersDeepLinks(latest, p) };
    return usabilityFindings(reportAsServed(report, served));
  }

  async function detail(p: ProjectWithOwner, { files: withFiles = true }: { files?: boolean } = {}) {
    const [latest, live, versions, comments] = await Promise.all([
      p.latest_deployment_id ? deployments.byId(db, p.latest_deployment_id) : undefined,
      p.live_deployment_id ? deployments.byId(db, p.live_deployment_id) : undefined,
      deployments.ofProject(db, p.id),
      reviewComments.ofProject(db, p.id),
    ]);
    const files = !withFiles ? undefined : latest ? await deploymentFiles.ofDeployment(db, latest.id) : [];
    return {
      project: p,
      latest,
      live,
      ...(files ? { files } : {}),
      usability: ownersFindings(p, latest),
      deployments: versions,
      reviewComments: comments,
    };
  }

  // Zip downloads under way per account: each compresses on zlib's few shared threads.
  const downloads = new PerAccountInFlight(DOWNLOADS_IN_FLIGHT_MAX, (n) => format(m.tooManyDownloads, { n }));

  return {
    visible,
    detail,

    /** A project the actor may edit, else 404. */
    async editable(actor: Actor, id: number): Promise<ProjectWithOwner> {
      const p = await visible(actor, id);
      if (!projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      return p;
    },

    async updateMeta(
      actor: Actor,
      id: number,
      body: {
        name?: string;
        description?: string | null;
        is_public?: boolean;
        spa_fallback?: boolean;
        clean_urls?: boolean;
        site_name?: string;
      },
      meta: RequestMeta,
    ) {
      const p = await visible(actor, id);
      if (!projectPolicy.edit(actor, p)) throw new NotFound(m.notFound);
      const patch: ProjectPatch & Record<string, unknown> = { updated_at: now() };
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description || null;
      if (body.is_public !== undefined) patch.is_public = body.is_public ? 1 : 0;
      if (body.spa_fallback !== undefined) patch.spa_fallback = body.spa_fallback ? 1 : 0;
      if (body.clean_urls !== undefined) patch.clean_urls = body.clean_urls ? 1 : 0;
      // The form sends every field: the audit log names only those whose value changed.
      const current: Record<string, unknown> = {
        name: p.name,
        description: p.description,
        is_public: p.is_public,
        spa_fallback: Number(p.spa_fallback),
        clean_urls: Number(p.clean_urls),
      };
      const changed = ['name', 'description', 'is_public', 'spa_fallback', 'clean_urls'].filter(
        (field) => field in patch && patch[field] !== current[field],
      );
      const renamed = body.site_name !== undefined && body.site_name !== p.site_name;
      if (renamed) changed.push('site_name');
      await db
        .transaction()
        .execute(async (trx) => {
          // A rename counts the names the owner's sites gave up: renames of its sites sent at once
          // wait for each other on the owner's row (PostgreSQL; taken first, as an upload's commit
          // takes it), so each sees the others' (docs/decisions/names.md "Renames are counted").
          if (renamed) await deps.repos.users.lockQuota(trx, p.owner_id);
          // Deleted since it was read (PostgreSQL runs the two side by side; on SQLite the delete
          // can commit between the read and this transaction): 404, with no edit audited and no
          // name claimed for it. On PostgreSQL the row is held until the commit, so a delete
          // arriving now waits for the edit.
          if (!(await projects.byIdForChange(trx, p.id))) throw new NotFound(m.notFound);
          await projects.update(trx, p.id, patch);
          if (renamed) await deps.siteNames.claim(trx, p.id, body.site_name!, patch.updated_at as string);
          // After the claim: the site name is searched too.
          await refreshSearchText(projects, trx, p.id);
          // In the edit's transaction: an edit is in the log exactly when it was made.
          if (changed.length > 0)
            await audit.record(
              {
                actor,
                action: 'project.update',
                targetType: 'project',
                targetId: p.id,
                detail: renamed
                  ? { fields: changed, site_name: body.site_name, from: p.site_name }
                  : { fields: changed },
                ip: meta.ip,
              },
              trx,
            );
        })
        .catch((error: unknown) => {
          // A concurrent claim of the same name won (PostgreSQL): the same 409 as the check's.
          if (renamed && isNameRace(error)) throw nameRaceLost(body.site_name!);
          throw error;
        });
      if (renamed) events.renamed?.(p.id);
      // The routing switches change how every version of the site is served, previews included.
      if (body.is_public !== undefined || changed.includes('spa_fallback') || changed.includes('clean_urls'))
        events.liveChanged(p.id);
      // Deleted right after the edit committed: it is gone all the same.
      const edited = await projects.byId(db, p.id);
      if (!edited) throw new NotFound(m.notFound);
      return detail(edited);
    },

    /**
     * Deletes the project, its versions and every blob nothing else uses. Once the rows are gone
     * the answer is a success: blobs that can't be removed now (storage away) are left to the
     * orphan sweep. A repeat by the same account within DELETE_REPEAT_MS (a retry whose first
     * answer was lost) is a success too, found by the first one's audit entry, written in the
     * delete's own transaction (docs/decisions/uploads.md "A committed delete answers success").
     */
    async remove(actor: Actor, id: number, meta: RequestMeta, reason?: string) {
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
            // Its site names lead nowhere now, and stay held (docs/decisions/names.md) while the
            // owner is within the limit of names given up: its row held, deletes of its sites
            // sent at once count one after another.
            await deps.repos.users.lockQuota(trx, p.owner_id);
            await deps.repos.siteNames.retireOfProject(trx, p.id, now());
            if (!(await projects.remove(trx, p.id))) throw new NotFound(m.notFound);
            await deps.renders?.dropOfProject?.(trx, p.id);
            await audit.record(
              {
                actor,
                action: 'project.delete',
                targetType: 'project',
                targetId: p.id,
                // The reason the owner is told, kept with the deletion.
                detail: {
                  name: p.name,
                  owner: p.owner_username,
                  ...(reason?.trim() ? { comment: reason.trim() } : {}),
                },
                ip: meta.ip,
              },
              trx,
            );
            // Another account (an admin) deleting it tells the owner, with the reason if given.
            await deps.notifications?.notify(trx, {
              kind: 'deleted',
              ownerId: p.owner_id,
              actorId: actor.id,
              projectId: p.id,
              projectName: p.name,
              version: null,
              reason: reason?.trim() || null,
            });
          });
          return used;
        });
      } catch (error) {
        if (await repeated(error)) return;
        throw error;
      }
      deps.notifications?.delivered();
      events.liveChanged(p.id);
      // Committed: what can't be removed now is the sweep's (it finds unreferenced blobs).
      await gate.deleteUnused(hashes).catch(() => undefined);
    },

    /**
     * A streamed zip of one version, written as it is sent (storage/zip-blobs.ts): the one asked
     * for (any version of the project, whatever its status: the review page asks for the one under
     * review), else the live one, else the newest (docs/decisions/uploads.md "Download"). A blob
     * that cannot be read (deleted with the project meanwhile, a storage fault) aborts the
     * response; it never ends the process.
     */
    async download(actor: Actor, id: number, meta: RequestMeta, deploymentId?: number) {
      const p = await visible(actor, id);
      if (!projectPolicy.download(actor, p)) throw new NotFound(m.notFound);
      const chosenId = deploymentId ?? p.live_deployment_id ?? p.latest_deployment_id;
      const version = chosenId ? await deployments.byId(db, chosenId) : undefined;
      // Another project's version is as missing as one that never existed.
      if (!version || version.project_id !== p.id) {
        throw new NotFound(deploymentId === undefined ? m.notFound : messages.review.deploymentNotFound);
      }
      // A few at once per account (DOWNLOADS_IN_FLIGHT_MAX), until each zip stream closes: sent,
      // failed or cut off.
      const done = downloads.begin(actor.id);
      try {
        const files = await deploymentFiles.ofDeployment(db, version.id);
        // The first file is opened before anything is sent: a store that can't be reached (or a blob
        // gone) is a clean error answer (503, 404) rather than a zip cut off after its first bytes.
        const first = files[0] ? await store.read(files[0].sha256) : undefined;
        try {
          // Every download counts, whichever version and whoever of the owner and the admins asks.
          await projects.countDownload(db, p.id);
          await audit.record({
            actor,
            action: 'project.download',
            targetType: 'project',
            targetId: p.id,
            detail: { version: version.version },
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
        zip.once('close', done);
        // A version asked for is named; the default keeps the name it always had.
        const filename =
          deploymentId === undefined ? `project-${p.id}.zip` : `project-${p.id}-v${version.version}.zip`;
        return { stream: zip, filename };
      } catch (error) {
        done();
        throw error;
      }
    },

    async listMine(actor: Actor, q: { status: OwnerFilter; page: number; page_size: number }) {
      const { rows, total } = await projects.listByOwner(db, actor.id, q.status, q.page, q.page_size);
      const versions = await deployments.byIds(
        db,
        rows.flatMap((r) =>
          [r.latest_deployment_id, r.live_deployment_id].filter((id): id is number => id !== null),
        ),
      );
      const [counts, storage] = await Promise.all([
        projects.countByStatus(db, actor.id),
        quota.usage(actor.id),
      ]);
      const stats: MyProjectStats = {
        total: countOfFilter(counts, 'all'),
        pending: counts.pending,
        reviewed: counts.approved + counts.published + counts.rejected + counts.taken_down,
        taken_down: counts.taken_down,
        // 已发布: live, featured included, as the admin's tab and dashboard count it.
        published: countOfFilter(counts, 'approved'),
      };
      return {
        /** Each project with its newest and live version (presenters/project.ts `presentProject`). */
        projects: rows.map((r) => ({
          project: r,
          latest: r.latest_deployment_id ? versions.get(r.latest_deployment_id) : undefined,
          live: r.live_deployment_id ? versions.get(r.live_deployment_id) : undefined,
        })),
        total,
        stats,
        storage,
      };
    },
  };
}
export type ProjectService = ReturnType<typeof createProjectService>;

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json)|image\/svg)/;

/**
 * Writes a project's search text and name order again, after its name, description or site name
 * changed.
 */
export async function refreshSearchText(projects: ProjectsRepository, trx: DB, projectId: number) {
  const p = await projects.byId(trx, projectId);
  if (p) {
    await projects.update(trx, projectId, {
      search_text: searchText(p.name, p.description, p.owner_username, p.site_name),
      name_sort_key: nameSortKey(p.name),
    });
  }
}

/**
 * Lower-cased name, description, site name (a line only when there is one) and author, for
 * substring search: one line each, the author last (search/plan.ts splitSearchText indexes the
 * other lines as the project's own text, the author apart).
 */
export function searchText(
  name: string,
  description: string | null,
  owner: string,
  siteName: string | null,
): string {
  return `${name}\n${description ?? ''}\n${siteName ? `${siteName}\n` : ''}${owner}`.toLowerCase();
}
