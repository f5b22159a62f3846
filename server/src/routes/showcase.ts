/** GET /api/projects/public: the showcase (anyone). */
import { showcaseQuery } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { parse } from '../domain/errors.js';
import { ok } from '../http/reply.js';
import { paginate } from '../presenters/pagination.js';
import { presentPublicProject } from '../presenters/project.js';

export const showcaseRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.get('/projects/public', { config: { access: 'public' } }, async (request) => {
      const q = parse(showcaseQuery, request.query);
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
