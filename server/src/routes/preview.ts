/** POST /api/projects/{id}/preview-token: a preview link for the owner or an admin. */
import { format, messages, PREVIEW_LINKS_MAX, PREVIEW_LINKS_WINDOW_MS } from '@sitehall/contracts';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound, TooManyRequests } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok } from '../http/reply.js';

export const previewRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    route(
      app,
      'previewToken',
      async (request) => {
        const id = idParam((request.params as { id?: string }).id);
        if (id === null) throw new NotFound(messages.project.notFound);
        const actor = actorOf(request);
        // The owner or an admin (projectPolicy.view); to anyone else the project does not exist.
        const project = await ctx.services.projects.visible(actor, id);
        return ok(await ctx.services.previews.create(actor, project, metaOf(request)));
      },
      {
        // Per account, in a budget of its own: each link is an audit entry, kept for good.
        config: {
          rateLimit: {
            max: PREVIEW_LINKS_MAX,
            timeWindow: PREVIEW_LINKS_WINDOW_MS,
            keyGenerator: (request: FastifyRequest) => `preview-link:${request.actor?.id ?? request.ip}`,
            allowList: (request: FastifyRequest) => request.actor?.role === 'admin',
            errorResponseBuilder: (_request, context) =>
              new TooManyRequests(
                format(messages.project.previewLinksExceeded, {
                  n: PREVIEW_LINKS_MAX,
                  window: PREVIEW_LINKS_WINDOW_MS / 60_000,
                  minutes: Math.max(1, Math.ceil(context.ttl / 60_000)),
                }),
                context.ttl / 1000,
              ),
          },
        },
      },
    );
  };
