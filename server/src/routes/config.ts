/** GET /api/config/public: the limits and types the web app shows and checks. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { ok } from '../http/reply.js';

export const configRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get('/config/public', { config: { access: 'public' } }, async () =>
      ok(await ctx.services.settings.publicConfig()),
    );
  };
