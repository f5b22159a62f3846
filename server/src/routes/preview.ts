/** POST /api/projects/{id}/preview-token: a preview link for the owner or an admin. */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok } from '../http/reply.js';

export const previewRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    route(app, 'previewToken', async (request) => {
      const id = idParam((request.params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.project.notFound);
      const actor = actorOf(request);
      // The owner or an admin (projectPolicy.view); to anyone else the project does not exist.
      const project = await ctx.services.projects.visible(actor, id);
      return ok(await ctx.services.previews.create(actor, project, metaOf(request)));
    });
  };
