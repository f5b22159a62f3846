/** The owner's project calls under /api/projects (docs/product.md §7, docs/product.md "Deployments"). */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { stageMultipartUpload } from '../http/multipart-upload.js';
import { idParam, metaOf, ok } from '../http/reply.js';
import { uploadDelivery } from '../http/upload-delivery.js';
import { paginate } from '../presenters/pagination.js';

export const projectRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { projects } = ctx.services;
    const projectId = (params: unknown) => {
      const id = idParam((params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.project.notFound);
      return id;
    };
    /**
     * A multipart upload: admitted before its body is read (may the actor upload here, does the
     * declared length fit), then staged; the service discards the staged files when done.
     */
    const receiveUpload = async (request: FastifyRequest, reply: FastifyReply, id: number | null) => {
      const actor = actorOf(request);
      const delivery = uploadDelivery(request, reply);
      const admission = await projects.admitUpload(
        actor,
        id,
        request.headers['content-length'],
        delivery.key,
      );
      const staged = await stageMultipartUpload(request, admission.limits, ctx.staging);
      return [actor, admission, staged, metaOf(request), delivery] as const;
    };

    route(app, 'upload', async (request, reply) => {
      const project = await projects.upload(...(await receiveUpload(request, reply, null)));
      return ok({ project }, messages.project.uploadSuccess);
    });

    route(app, 'myProjects', async (request, _reply, { query: q }) => {
      const { projects: list, total, stats, storage } = await projects.listMine(actorOf(request), q);
      return ok({ projects: list, pagination: paginate(q.page, q.page_size, total), stats, storage });
    });

    route(app, 'project', async (request) => {
      const p = await projects.visible(actorOf(request), projectId(request.params));
      return ok({ project: await projects.detail(p) });
    });

    // JSON edits the metadata; multipart uploads a new version of the files.
    route(app, 'updateProject', async (request, reply, input) => {
      const id = projectId(request.params);
      if (request.isMultipart()) {
        const project = await projects.uploadVersion(...(await receiveUpload(request, reply, id)));
        return ok({ project }, messages.project.versionUploaded);
      }
      const body = input.body;
      const project = await projects.updateMeta(
        actorOf(request),
        id,
        { name: body.project_name ?? body.name, description: body.description, is_public: body.is_public },
        metaOf(request),
      );
      return ok({ project }, messages.project.updated);
    });

    route(app, 'deleteProject', async (request) => {
      await projects.remove(actorOf(request), projectId(request.params), metaOf(request));
      return ok(null, messages.project.deleted);
    });

    route(app, 'rollback', async (request, _reply, { body }) => {
      const actor = actorOf(request);
      const id = projectId(request.params);
      await ctx.services.review.rollback(actor, id, body.deployment_id, metaOf(request));
      return ok(
        { project: await projects.detail(await projects.visible(actor, id)) },
        messages.review.rollbackDone,
      );
    });

    route(app, 'download', async (request, reply) => {
      const { stream, filename } = await projects.download(
        actorOf(request),
        projectId(request.params),
        metaOf(request),
      );
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(stream);
    });
  };
