/**
 * Admin calls under /api/admin (admin only): the review lists and detail, review decisions, batch
 * actions, downloads, the dashboard's figures, the audit log and the platform settings.
 */
import { format, messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok, sendZip } from '../http/reply.js';
import { presentAuditLog } from '../presenters/audit.js';
import { paginate } from '../presenters/pagination.js';
import { presentAdminProject, presentProjectDetail } from '../presenters/project.js';
import { presentReviewDetail } from '../presenters/review.js';

export const adminRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { review, reviewQueue, projects, stats, audit, settings } = ctx.services;
    const projectId = (params: unknown) => {
      const id = idParam((params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.project.notFound);
      return id;
    };
    const doneMessage = {
      approve: messages.review.approved,
      reject: messages.review.rejected,
      publish: messages.review.published,
      unpublish: messages.review.unpublished,
      takedown: messages.review.takenDown,
      delete: messages.project.deleted,
    } as const;

    route(app, 'adminProjects', async (request, _reply, { query: q }) => {
      const viewer = actorOf(request);
      const { projects: rows, total, counts } = await reviewQueue.list(q);
      return ok({
        projects: rows.map((r) => presentAdminProject(r.project, { ...r, urls: ctx.urls, viewer })),
        pagination: paginate(q.page, q.page_size, total),
        counts,
      });
    });

    route(app, 'pendingProjects', async (request, _reply, { query: q }) => {
      const viewer = actorOf(request);
      const { projects: rows, total } = await reviewQueue.pending(q.page, q.page_size);
      return ok({
        projects: rows.map((r) => presentAdminProject(r.project, { ...r, urls: ctx.urls, viewer })),
        pagination: paginate(q.page, q.page_size, total),
      });
    });

    route(app, 'adminProject', async (request) => {
      const detail = await reviewQueue.detail(projectId(request.params));
      return ok(presentReviewDetail(detail, actorOf(request), ctx.urls));
    });

    // A text file of the newest version around a line: where a content check finding points.
    route(app, 'adminSource', async (request, _reply, { query: q }) => {
      return ok(await reviewQueue.source(projectId(request.params), q.path, q.line));
    });

    // One changed text file of the live and the newest version: the review's line diff.
    route(app, 'adminFileDiff', async (request, _reply, { query: q }) => {
      return ok(await ctx.services.fileDiff.between(projectId(request.params), q.path));
    });

    // Renders the project's newest (and live) version again (docs/render.md).
    route(app, 'rerenderProject', async (request) => {
      const { queued } = await ctx.services.render.rerender(projectId(request.params));
      return ok({ queued }, format(messages.render.queued, { n: queued }));
    });

    route(app, 'review', async (request, _reply, { body }) => {
      const actor = actorOf(request);
      const id = projectId(request.params);
      await review.decide(actor, id, body.action, body.comment, metaOf(request), body.version);
      const detail = await projects.detail(await projects.visible(actor, id));
      return ok({ project: presentProjectDetail(detail, actor, ctx.urls) }, doneMessage[body.action]);
    });

    // Each project is all-or-nothing on its own; the answer reports every one.
    route(app, 'batch', async (request, _reply, { body }) => {
      const actor = actorOf(request);
      const results: Array<{ id: number; success: boolean; message: string }> = [];
      for (const id of [...new Set(body.projectIds)]) {
        try {
          if (body.action === 'delete') await projects.remove(actor, id, metaOf(request), body.data.comment);
          else
            await review.decide(
              actor,
              id,
              body.action,
              body.data.comment,
              metaOf(request),
              body.data.versions?.[String(id)],
            );
          results.push({ id, success: true, message: doneMessage[body.action] });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({ id, success: false, message: err.message });
        }
      }
      const succeeded = results.filter((r) => r.success).length;
      return ok({ results, succeeded, failed: results.length - succeeded });
    });

    route(app, 'adminDownload', async (request, reply, { query }) => {
      const zip = await projects.download(
        actorOf(request),
        projectId(request.params),
        metaOf(request),
        query.deployment_id,
      );
      return sendZip(reply, zip);
    });

    route(app, 'stats', async () => ok(await stats.overview()));

    route(app, 'auditLogs', async (_request, _reply, { query: q }) => {
      const { rows, total, names } = await audit.list(q);
      return ok({
        logs: rows.map((row) => presentAuditLog(row, names)),
        pagination: paginate(q.page, q.page_size, total),
      });
    });

    route(app, 'adminConfig', async () => ok(await settings.adminConfig()));

    route(app, 'updateAdminConfig', async (request, _reply, { body }) => {
      return ok(await settings.change(actorOf(request), body, metaOf(request)), messages.review.configSaved);
    });
  };
