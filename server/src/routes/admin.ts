/**
 * Admin calls under /api/admin (admin only): the review lists and detail, review decisions, batch
 * actions, downloads, the dashboard's figures, the audit log and the platform settings.
 */
import {
  adminConfigBody,
  adminProjectsQuery,
  adminSourceQuery,
  auditLogQuery,
  batchBody,
  format,
  messages,
  pendingProjectsQuery,
  reviewBody,
} from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, NotFound, parse } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { idParam, ok } from '../http/reply.js';
import { presentAuditLog } from '../presenters/audit.js';
import { paginate } from '../presenters/pagination.js';

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

    app.get('/admin/projects', { config: { access: 'admin' } }, async (request) => {
      const q = parse(adminProjectsQuery, request.query);
      const { projects: list, total, counts } = await reviewQueue.list(q);
      return ok({ projects: list, pagination: paginate(q.page, q.page_size, total), counts });
    });

    app.get('/admin/projects/pending', { config: { access: 'admin' } }, async (request) => {
      const q = parse(pendingProjectsQuery, request.query);
      const { projects: list, total } = await reviewQueue.pending(q.page, q.page_size);
      return ok({ projects: list, pagination: paginate(q.page, q.page_size, total) });
    });

    app.get('/admin/projects/:id', { config: { access: 'admin' } }, async (request) =>
      ok(await reviewQueue.detail(projectId(request.params))),
    );

    // A text file of the newest version around a line: where a content check finding points.
    app.get('/admin/projects/:id/source', { config: { access: 'admin' } }, async (request) => {
      const q = parse(adminSourceQuery, request.query);
      return ok(await reviewQueue.source(projectId(request.params), q.path, q.line));
    });

    // Renders the project's newest (and live) version again (docs/render.md).
    app.post('/admin/projects/:id/render', { config: { access: 'admin' } }, async (request) => {
      const { queued } = await ctx.services.render.rerender(projectId(request.params));
      return ok({ queued }, format(messages.render.queued, { n: queued }));
    });

    app.post('/admin/projects/:id/review', { config: { access: 'admin' } }, async (request) => {
      const body = parse(reviewBody, request.body);
      const actor = actorOf(request);
      const id = projectId(request.params);
      await review.decide(actor, id, body.action, body.comment, request.ip);
      const p = await projects.visible(actor, id);
      return ok({ project: await projects.detail(p) }, doneMessage[body.action]);
    });

    // Each project is all-or-nothing on its own; the answer reports every one.
    app.post('/admin/projects/batch', { config: { access: 'admin' } }, async (request) => {
      const body = parse(batchBody, request.body);
      const actor = actorOf(request);
      const results: Array<{ id: number; success: boolean; message: string }> = [];
      for (const id of [...new Set(body.projectIds)]) {
        try {
          if (body.action === 'delete') await projects.remove(actor, id, request.ip);
          else await review.decide(actor, id, body.action, body.data.comment, request.ip);
          results.push({ id, success: true, message: doneMessage[body.action] });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({ id, success: false, message: err.message });
        }
      }
      const succeeded = results.filter((r) => r.success).length;
      return ok({ results, succeeded, failed: results.length - succeeded });
    });

    app.get('/admin/projects/:id/download', { config: { access: 'admin' } }, async (request, reply) => {
      const { stream, filename } = await projects.download(
        actorOf(request),
        projectId(request.params),
        request.ip,
      );
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    });

    app.get('/admin/stats', { config: { access: 'admin' } }, async () => ok(await stats.overview()));

    app.get('/admin/audit-logs', { config: { access: 'admin' } }, async (request) => {
      const q = parse(auditLogQuery, request.query);
      const { rows, total } = await audit.list(q);
      return ok({ logs: rows.map(presentAuditLog), pagination: paginate(q.page, q.page_size, total) });
    });

    app.get('/admin/config', { config: { access: 'admin' } }, async () => ok(await settings.adminConfig()));

    app.put('/admin/config', { config: { access: 'admin' } }, async (request) => {
      const body = parse(adminConfigBody, request.body);
      return ok(await settings.change(actorOf(request), body, request.ip), messages.review.configSaved);
    });
  };
