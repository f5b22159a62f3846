/**
 * GET /api/thumbnails/{sha256}.webp: a version's rendered picture (docs/render.md). Our own
 * generated image, content-addressed: its hash is its ETag. Who may see it changes (a takedown, a
 * project made private), so every cache asks again before each use (`no-cache`): a 304 while it
 * is still shown, a 404 once it is not. Public access: the service decides who sees which picture.
 */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { route } from '../http/endpoint-routes.js';
import { etagFor, noneMatchHits } from '../serve/http-conditions.js';

const NAME = /^([0-9a-f]{64})\.webp$/;

export const thumbnailRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    route(app, 'thumbnail', async (request, reply) => {
      const match = NAME.exec(String((request.params as { name?: string }).name ?? ''));
      if (!match) throw new NotFound(messages.render.thumbnailNotFound);
      const sha256 = match[1]!;
      const picture = await ctx.services.render.thumbnail(request.actor ?? null, sha256);
      const etag = etagFor(sha256);
      reply.headers({
        etag,
        'cache-control': `${picture.shared ? 'public' : 'private'}, no-cache`,
        'x-content-type-options': 'nosniff',
        // Who may see it depends on the session: a shared cache keeps the public answer only.
        ...(picture.shared ? {} : { vary: 'authorization' }),
      });
      const noneMatch = request.headers['if-none-match'];
      if (noneMatch && noneMatchHits(noneMatch, etag)) {
        picture.body.destroy();
        return reply.code(304).send();
      }
      picture.body.on('error', () => reply.raw.destroy());
      return reply.type('image/webp').header('content-length', picture.size).send(picture.body);
    });
  };
