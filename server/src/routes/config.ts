/** GET /api/config/public: the limits and types the web app shows and checks. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { route } from '../http/endpoint-routes.js';
import { ok } from '../http/reply.js';

export const configRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    route(app, 'publicConfig', async () => ok(await ctx.services.settings.publicConfig()));
  };
