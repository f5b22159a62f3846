/** GET /api/projects/public: the showcase (anyone). */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { route } from '../http/endpoint-routes.js';
import { ok } from '../http/reply.js';
import { paginate } from '../presenters/pagination.js';
import { presentPublicProject } from '../presenters/project.js';

export const showcaseRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    route(app, 'showcase', async (_request, _reply, { query: q }) => {
      const { rows, total, capped } = await ctx.showcase.list({
        search: q.search || undefined,
        sort: q.sort,
        featured: q.featured,
        page: q.page,
        pageSize: q.page_size,
      });
      return ok({
        projects: rows.map((r) => presentPublicProject(r, ctx.urls)),
        pagination: { ...paginate(q.page, q.page_size, total), total_capped: capped },
      });
    });
  };
