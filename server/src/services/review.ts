/**
 * The review queue (admin lists, pending list, review detail with content check and version diff)
 * and the review decisions: approve, reject, publish, unpublish, take down, and rollback. Each is one
 * transaction that re-reads the project, checks the transition table (domain/review-transitions.ts), applies
 * the change, and keeps the decision as a review comment; the audit log records it too.
 * Approving a new version switches the live pointer in that same transaction: the old version
 * serves until the commit, the new one from the next request.
 */
import {
  ACTIONS_REQUIRING_COMMENT,
  ADMIN_PENDING_FILE_NAMES,
  type AdminProjectsFilters,
  type AdminSourceData,
  type ContentCheckReport,
  fileTypesWhere,
  format,
  messages,
  REVIEW_ACTION_LABELS,
  type ReviewAction,
  reasonRequiredMessage,
  STATUS_LABELS,
} from '@sitehall/contracts';
import {
  checkSiteContent,
  parseContentCheck,
  reportAsServed,
  riskRankOf,
  siteFileInStore,
  summarizeContentCheck,
} from '../content-check/index.js';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { DeploymentRow, ProjectUpdate } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { Conflict, Invalid, NotFound } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { planTransition, reviewedProjectOf, type TransitionPlan } from '../domain/review-transitions.js';
import type { SiteUrlOptions } from '../domain/site-urls.js';
import { projectPolicy } from '../policies/project.js';
import { canTransition, transitionRefusal } from '../policies/review.js';
import type { Repositories } from '../repositories/index.js';
import type { ProjectWithOwner } from '../repositories/projects.js';
import type { RenderJobRow } from '../repositories/render-jobs.js';
import type { BlobStore } from '../storage/index.js';
import type { AuditService } from './audit.js';
import { traceStoreOf } from './content-traces.js';
import type { NotificationEvent, NotificationService } from './notifications.js';
import type { ProjectEvents, ProjectService } from './projects.js';
import { answersDeepLinks } from './site-index.js';

const m = messages.review;

/** The project row's changes for a planned transition (domain/review-transitions.ts). */
function projectPatch(plan: TransitionPlan, at: string, actor: Actor): ProjectUpdate {
  const { status, featured, liveDeploymentId, stamp } = plan.project;
  const patch: ProjectUpdate = { updated_at: at };
  if (status !== undefined) patch.status = status;
  if (featured !== undefined) patch.featured = featured ? 1 : 0;
  if (liveDeploymentId !== undefined) patch.live_deployment_id = liveDeploymentId;
  if (stamp === 'approved') {
    patch.approved_at = at;
    patch.approved_by = actor.id;
  }
  if (stamp === 'published') patch.published_at = at;
  return patch;
}

/** The notice a review decision sends its project's owner (publish and unpublish send none). */
function noticeOf(
  action: ReviewAction,
  wasLive: boolean,
): Exclude<NotificationEvent['kind'], 'upload_pending'> | null {
  if (action === 'approve') return wasLive ? 'version_live' : 'approved';
  if (action === 'reject') return 'rejected';
  if (action === 'takedown') return 'taken_down';
  return null;
}

export function createReviewService(deps: {
  db: DB;
  repos: Pick<Repositories, 'projects' | 'deployments' | 'reviewComments'>;
  audit: Pick<AuditService, 'record'>;
  events: Pick<ProjectEvents, 'liveChanged'>;
  notifications?: Pick<NotificationService, 'notify' | 'delivered'>;
}) {
  const { db, audit, events, notifications } = deps;
  const { projects, deployments, reviewComments } = deps.repos;

  return {
    async decide(
      actor: Actor,
      projectId: number,
      action: ReviewAction,
      comment: string | undefined,
      meta: RequestMeta,
      /**
       * The newest version as the reviewer saw it: an approval or rejection applies only while it
       * still is (docs/decisions/review.md "A decision names its version").
       */
      seenVersion?: number,
    ) {
      const text = comment?.trim() || null;
      if (ACTIONS_REQUIRING_COMMENT.includes(action) && !text)
        throw new Invalid('comment', reasonRequiredMessage(action));
      let liveChanged = false;
      await db.transaction().execute(async (trx) => {
        const p = await projects.byIdForChange(trx, projectId);
        if (!p) throw new NotFound(messages.project.notFound);
        const project = reviewedProjectOf(p);
        if (!canTransition(action, project)) {
          throw new Conflict(
            format(m.transitionNotAllowed, {
              from: STATUS_LABELS[p.status],
              action: REVIEW_ACTION_LABELS[action],
            }),
          );
        }
        if (seenVersion !== undefined && (action === 'approve' || action === 'reject')) {
          const newest = p.latest_deployment_id
            ? await deployments.byId(trx, p.latest_deployment_id)
            : undefined;
          if (newest && newest.version !== seenVersion) {
            throw new Conflict(format(m.versionChanged, { version: newest.version }));
          }
        }
        const plan = planTransition(action, project);
        const at = now();
        const patch = projectPatch(plan, at, actor);
        const deploymentId = plan.deploymentId;
        liveChanged = plan.liveChanged;
        if (deploymentId !== null && plan.versionStatus !== null) {
          await deployments.markReviewed(trx, deploymentId, {
            status: plan.versionStatus,
            at,
            by: actor.id,
            comment: text,
          });
          if (plan.alsoRejectId !== null) {
            await deployments.markReviewed(trx, plan.alsoRejectId, {
              status: 'rejected',
              at,
              by: actor.id,
              comment: text,
              onlyIf: ['pending', 'rejected'],
            });
          }
        }
        await projects.update(trx, p.id, patch);
        await reviewComments.add(trx, {
          project_id: p.id,
          deployment_id: deploymentId,
          actor_id: actor.id,
          action,
          comment: text,
          created_at: at,
        });
        // The version decided, named in the log and the owner's notice (a project has several).
        const version =
          deploymentId === null ? null : ((await deployments.byId(trx, deploymentId))?.version ?? null);
        await audit.record(
          {
            actor,
            action: `review.${action}`,
            targetType: 'project',
            targetId: p.id,
            detail: {
              from: p.status,
              to: patch.status,
              comment: text,
              ...(version !== null ? { version } : {}),
            },
            ip: meta.ip,
          },
          trx,
        );
        const kind = noticeOf(action, p.live_deployment_id !== null);
        if (kind && notifications) {
          await notifications.notify(trx, {
            kind,
            ownerId: p.owner_id,
            actorId: actor.id,
            projectId: p.id,
            projectName: p.name,
            version,
            reason: text,
          });
        }
      });
      notifications?.delivered();
      if (liveChanged) events.liveChanged(projectId);
    },

    /** Makes an earlier approved version live again (owner or admin), while the project is live. */
    async rollback(actor: Actor, projectId: number, deploymentId: number, meta: RequestMeta) {
      await db.transaction().execute(async (trx) => {
        const p = await projects.byIdForChange(trx, projectId);
        if (!p || !projectPolicy.rollback(actor, p)) throw new NotFound(messages.project.notFound);
        const d = await deployments.byId(trx, deploymentId);
        if (!d || d.project_id !== p.id) throw new NotFound(m.deploymentNotFound);
        const project = reviewedProjectOf(p);
        const chosen = { id: d.id, status: d.status };
        const refusal = transitionRefusal('rollback', project, chosen);
        if (refusal) throw new Conflict(m[refusal]);
        const at = now();
        await projects.update(
          trx,
          p.id,
          projectPatch(planTransition('rollback', project, chosen), at, actor),
        );
        await reviewComments.add(trx, {
          project_id: p.id,
          deployment_id: d.id,
          actor_id: actor.id,
          action: 'rollback',
          comment: `v${d.version}`,
          created_at: at,
        });
        await audit.record(
          {
            actor,
            action: 'project.rollback',
            targetType: 'project',
            targetId: p.id,
            detail: { version: d.version },
            ip: meta.ip,
          },
          trx,
        );
        await notifications?.notify(trx, {
          kind: 'rolled_back',
          ownerId: p.owner_id,
          actorId: actor.id,
          projectId: p.id,
          projectName: p.name,
          version: d.version,
        });
      });
      notifications?.delivered();
      events.liveChanged(projectId);
    },
  };
}
export type ReviewService = ReturnType<typeof createReviewService>;

/** Days of per-day views on the review detail. */
const VIEW_DAYS = 30;

/** What admins read: the review list with its tab counts, the pending list, the review detail. */
export function createReviewQueue(deps: {
  db: DB;
  repos: Pick<
    Repositories,
    'projects' | 'deployments' | 'deploymentFiles' | 'projectDailyViews' | 'renderJobs'
  >;
  store: BlobStore;
  urls: SiteUrlOptions;
  /** Sites live at the root of their own host (domain/site-urls.ts `sitesAtHostRoot`): `/x` works. */
  sitesAtRoot?: boolean;
  /** The project detail the owner sees too (ProjectService.detail). */
  projectDetail: ProjectService['detail'];
}) {
  const { db, store, projectDetail } = deps;
  const sitesAtRoot = deps.sitesAtRoot ?? false;
  const { projects, deployments, deploymentFiles, projectDailyViews, renderJobs } = deps.repos;

  /** The newest and the live version (one entry when they are the same), each with its render job. */
  async function rendersOf(p: ProjectWithOwner) {
    const ids = [...new Set([p.latest_deployment_id, p.live_deployment_id])].filter(
      (id): id is number => id !== null,
    );
    const versions = await deployments.byIds(db, ids);
    const out: Array<{
      version: DeploymentRow;
      job: RenderJobRow | undefined;
      newest: boolean;
      live: boolean;
    }> = [];
    for (const id of ids) {
      const d = versions.get(id);
      if (!d) continue;
      out.push({
        version: d,
        job: await renderJobs.byDeployment(db, id),
        newest: id === p.latest_deployment_id,
        live: id === p.live_deployment_id,
      });
    }
    return out;
  }

  /** The stored check, or (for a version uploaded before the check existed) one made now and kept. */
  async function contentCheckOf(d: DeploymentRow): Promise<ContentCheckReport | null> {
    const stored = parseContentCheck(d.content_check);
    if (stored) return stored;
    try {
      const files = await deploymentFiles.ofDeployment(db, d.id);
      const report = await checkSiteContent(
        files.map((f) => siteFileInStore(store, f)),
        d.entry_file,
        { rootPathsWork: sitesAtRoot, store: traceStoreOf(db) },
      );
      await deployments.saveContentCheck(db, d.id, JSON.stringify(report), riskRankOf(report));
      return report;
    } catch {
      // A blob gone missing must not take the review page down: it shows the check as not done.
      return null;
    }
  }

  /** A version's report as it reads now for its project on this install (`reportAsServed`). */
  function asServed(
    p: ProjectWithOwner,
    d: DeploymentRow | undefined,
    report: ContentCheckReport | null,
  ): ContentCheckReport | null {
    if (!d || !report) return report;
    return reportAsServed(report, { sitesAtRoot, answersDeepLinks: answersDeepLinks(d, p) });
  }

  /**
   * Admin list rows (presenters/project.ts `presentAdminProject`): each project with its newest and
   * live version and the newest one's content check badge; with fileNames, a few file names of each
   * newest version, entry file first.
   */
  async function rowsOf(rows: ProjectWithOwner[], opts: { fileNames?: boolean } = {}) {
    const ids = rows.flatMap((r) => (r.latest_deployment_id ? [r.latest_deployment_id] : []));
    const liveIds = rows.flatMap((r) => (r.live_deployment_id ? [r.live_deployment_id] : []));
    const [versions, first] = await Promise.all([
      deployments.byIds(db, [...new Set([...ids, ...liveIds])]),
      opts.fileNames ? deploymentFiles.firstPaths(db, ids, ADMIN_PENDING_FILE_NAMES + 1) : undefined,
    ]);
    return rows.map((r) => {
      const d = r.latest_deployment_id ? versions.get(r.latest_deployment_id) : undefined;
      let fileNames: string[] | undefined;
      if (first) {
        const entry = d?.entry_file ?? null;
        const rest = (d ? (first.get(d.id) ?? []) : []).filter((path) => path !== entry);
        fileNames = [...(entry ? [entry] : []), ...rest].slice(0, ADMIN_PENDING_FILE_NAMES);
      }
      return {
        project: r,
        latest: d,
        live: r.live_deployment_id ? versions.get(r.live_deployment_id) : undefined,
        contentCheck: summarizeContentCheck(asServed(r, d, parseContentCheck(d?.content_check ?? null))),
        fileNames,
      };
    });
  }

  /** The live and the newest version with their files, when they differ (presenters/review.ts `presentVersionDiff`). */
  async function diffOf(p: ProjectWithOwner) {
    const liveId = p.live_deployment_id;
    const newestId = p.latest_deployment_id;
    if (liveId === null || newestId === null || liveId === newestId) return null;
    const [live, newest, liveFiles, newestFiles] = await Promise.all([
      deployments.byId(db, liveId),
      deployments.byId(db, newestId),
      deploymentFiles.ofDeployment(db, liveId),
      deploymentFiles.ofDeployment(db, newestId),
    ]);
    if (!live || !newest) return null;
    return { live, newest, liveFiles, newestFiles };
  }

  /** The project's counters and its views of each of the last VIEW_DAYS days (UTC), oldest first. */
  async function statsOf(p: ProjectWithOwner) {
    const today = new Date();
    const days: string[] = [];
    for (let i = VIEW_DAYS - 1; i >= 0; i--) {
      days.push(new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10));
    }
    const counted = new Map(
      (await projectDailyViews.ofProjectFrom(db, p.id, days[0]!)).map(
        (r) => [r.day, Number(r.views)] as const,
      ),
    );
    return { project: p, viewsByDay: days.map((day) => ({ day, views: counted.get(day) ?? 0 })) };
  }

  return {
    async list(q: AdminProjectsFilters) {
      const [{ rows, total }, counts] = await Promise.all([
        projects.listAll(db, {
          status: q.status,
          search: q.search,
          sort: q.sort,
          risk: q.risk,
          page: q.page,
          pageSize: q.page_size,
        }),
        projects.countsMatching(db, q.search),
      ]);
      return { projects: await rowsOf(rows), total, counts };
    },

    /** Oldest first, each with a few of its newest version's file names (entry file first). */
    async pending(page: number, pageSize: number) {
      const { rows, total } = await projects.pendingOldestFirst(db, page, pageSize);
      return { projects: await rowsOf(rows, { fileNames: true }), total };
    },

    /** The review detail's rows (presenters/review.ts `presentReviewDetail`). */
    async detail(id: number) {
      const p = await projects.byId(db, id);
      if (!p) throw new NotFound(messages.project.notFound);
      const newest = p.latest_deployment_id ? await deployments.byId(db, p.latest_deployment_id) : undefined;
      const [project, contentCheck, diff, stats, renders] = await Promise.all([
        projectDetail(p),
        newest ? contentCheckOf(newest).then((report) => asServed(p, newest, report)) : null,
        diffOf(p),
        statsOf(p),
        rendersOf(p),
      ]);
      return { project, contentCheck, contentCheckVersion: newest?.version ?? null, diff, stats, renders };
    },

    /** Lines of a text file of the newest version around `line`: where a content check finding points. */
    async source(id: number, path: string, line = 1): Promise<AdminSourceData> {
      const cc = messages.review.contentCheck;
      const p = await projects.byId(db, id);
      if (!p?.latest_deployment_id) throw new NotFound(messages.project.notFound);
      const d = await deployments.byId(db, p.latest_deployment_id);
      const file = d
        ? (await deploymentFiles.ofDeployment(db, d.id)).find((f) => f.path === path)
        : undefined;
      if (!d || !file) throw new NotFound(cc.sourceNotFound);
      if (!SOURCE_TYPES.has(file.extension)) throw new Invalid('path', cc.sourceNotText);
      const size = Number(file.size);
      const want = Math.min(size, SOURCE_MAX_BYTES);
      const chunks: Buffer[] = [];
      try {
        if (want > 0) {
          for await (const chunk of await store.read(file.sha256, { start: 0, end: want - 1 })) {
            chunks.push(chunk as Buffer);
          }
        }
      } catch {
        // A blob gone missing or unreadable: the page says so, the server goes on.
        throw new NotFound(cc.sourceFailed);
      }
      const lines = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/^\ufeff/, '')
        .split(/\r?\n/);
      const at = Math.min(line, lines.length);
      const first = Math.max(1, at - SOURCE_CONTEXT_LINES);
      return {
        path,
        version: d.version,
        first_line: first,
        lines: lines.slice(first - 1, at + SOURCE_CONTEXT_LINES).map((l) => l.slice(0, SOURCE_LINE_CHARS)),
        truncated: size > want,
      };
    },
  };
}

/** The file view of the review detail: text types only, the first 2 MB, 40 lines either side. */
const SOURCE_TYPES = new Set(fileTypesWhere((type) => type.source));
const SOURCE_MAX_BYTES = 2 * 1024 * 1024;
const SOURCE_CONTEXT_LINES = 40;
const SOURCE_LINE_CHARS = 1000;
export type ReviewQueue = ReturnType<typeof createReviewQueue>;
