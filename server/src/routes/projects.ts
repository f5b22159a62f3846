/** The owner's project calls under /api/projects (docs/product.md §7, docs/product.md "Deployments"). */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Actor } from '../domain/actor.js';
import { NotFound } from '../domain/errors.js';
import { latinOf } from '../domain/name-order.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { stageMultipartUpload } from '../http/multipart-upload.js';
import { idParam, metaOf, ok, sendZip } from '../http/reply.js';
import { uploadDelivery } from '../http/upload-delivery.js';
import type { StagedUpload } from '../ingest/staging.js';
import { paginate } from '../presenters/pagination.js';
import { presentProject, presentProjectDetail } from '../presenters/project.js';
import { projectAnalytics } from '../services/site-analytics.js';
import type { UploadAdmission, UploadDelivery } from '../services/uploads.js';

export const projectRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { projects, uploads } = ctx.services;
    const projectId = (params: unknown) => {
      const id = idParam((params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.project.notFound);
      return id;
    };
    /**
     * A multipart upload: admitted before its body is read (may the actor upload here, does the
     * declared length fit), then staged; the service discards the staged files when done.
     */
    const receiveUpload = async <T>(
      request: FastifyRequest,
      reply: FastifyReply,
      id: number | null,
      store: (...received: [Actor, UploadAdmission, StagedUpload, RequestMeta, UploadDelivery]) => Promise<T>,
    ): Promise<T> => {
      const actor = actorOf(request);
      const delivery = uploadDelivery(request, reply);
      const admission = await uploads.admitUpload(actor, id, request.headers['content-length'], delivery);
      try {
        const staged = await stageMultipartUpload(request, admission.limits, ctx.staging);
        return await store(actor, admission, staged, metaOf(request), delivery);
      } finally {
        // Stored, refused or cut off: the account's place among uploads under way is free again.
        admission.done?.();
      }
    };

    route(app, 'upload', async (request, reply) => {
      const [actor, project] = await receiveUpload(request, reply, null, async (...received) => [
        received[0],
        await uploads.upload(...received),
      ]);
      return ok({ project: presentProjectDetail(project, actor, ctx.urls) }, messages.project.uploadSuccess);
    });

    route(app, 'myProjects', async (request, _reply, { query: q }) => {
      const viewer = actorOf(request);
      const { projects: rows, total, stats, storage } = await projects.listMine(viewer, q);
      return ok({
        projects: rows.map((r) => presentProject(r.project, { ...r, urls: ctx.urls, viewer })),
        pagination: paginate(q.page, q.page_size, total),
        stats,
        storage,
      });
    });

    // The upload form and the project page: is a name free, or which name to suggest.
    route(app, 'siteName', async (request, _reply, { query: q }) => {
      // A project's own names are free to it: only for a project the asker may edit.
      if (q.project_id !== undefined) await projects.editable(actorOf(request), q.project_id);
      const fromAscii = q.from === undefined ? undefined : latinOf(q.from);
      return ok(
        await ctx.services.siteNames.answer({
          ...(q.name !== undefined ? { name: q.name } : {}),
          ...(fromAscii !== undefined ? { fromAscii } : {}),
          projectId: q.project_id ?? null,
        }),
      );
    });

    route(app, 'project', async (request) => {
      const actor = actorOf(request);
      const detail = await projects.detail(await projects.visible(actor, projectId(request.params)));
      return ok({ project: presentProjectDetail(detail, actor, ctx.urls) });
    });

    // JSON edits the metadata; multipart uploads a new version of the files.
    route(app, 'updateProject', async (request, reply, input) => {
      const id = projectId(request.params);
      if (request.isMultipart()) {
        const [actor, project] = await receiveUpload(request, reply, id, async (...received) => [
          received[0],
          await uploads.uploadVersion(...received),
        ]);
        return ok(
          { project: presentProjectDetail(project, actor, ctx.urls) },
          messages.project.versionUploaded,
        );
      }
      const body = input.body;
      const actor = actorOf(request);
      const project = await projects.updateMeta(
        actor,
        id,
        {
          name: body.project_name ?? body.name,
          description: body.description,
          is_public: body.is_public,
          spa_fallback: body.spa_fallback,
          clean_urls: body.clean_urls,
          site_name: body.site_name,
        },
        metaOf(request),
      );
      return ok({ project: presentProjectDetail(project, actor, ctx.urls) }, messages.project.updated);
    });

    // An admin deleting another account's project may give the reason its owner reads in the notice.
    route(app, 'deleteProject', async (request, _reply, { body }) => {
      await projects.remove(actorOf(request), projectId(request.params), metaOf(request), body.comment);
      return ok(null, messages.project.deleted);
    });

    route(app, 'rollback', async (request, _reply, { body }) => {
      const actor = actorOf(request);
      const id = projectId(request.params);
      await ctx.services.review.rollback(actor, id, body.deployment_id, metaOf(request));
      return ok(
        {
          project: presentProjectDetail(
            await projects.detail(await projects.visible(actor, id)),
            actor,
            ctx.urls,
          ),
        },
        messages.review.rollbackDone,
      );
    });

    // The owner's analytics (or an admin's): who may see the project may see its numbers.
    route(app, 'projectAnalytics', async (request) => {
      const p = await projects.visible(actorOf(request), projectId(request.params));
      return ok(await projectAnalytics(ctx.db, p.id));
    });

    route(app, 'download', async (request, reply, { query }) => {
      const zip = await projects.download(
        actorOf(request),
        projectId(request.params),
        metaOf(request),
        query.deployment_id,
      );
      return sendZip(reply, zip);
    });
  };
