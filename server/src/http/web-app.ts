/**
 * Serves the built web app: hashed assets with long caching, and index.html for every client
 * route (React Router decides what to show). Unknown /api paths answer the JSON envelope instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';
import { isSiteContentPath } from './headers.js';
import { sendSiteMethodNotAllowed } from './reply.js';

export async function registerWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const built = fs.existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      setHeaders(res, file) {
        res.setHeader(
          'cache-control',
          file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    // Methods no route is registered for (TRACE, PROPFIND…) on a site: the routes' 405.
    if (isSiteContentPath(request.url) && request.method !== 'GET' && request.method !== 'HEAD') {
      return sendSiteMethodNotAllowed(reply);
    }
    if (request.url.startsWith('/api/') || request.url === '/api') {
      return sendError(reply, 404, messages.common.apiNotFound);
    }
    if ((request.method === 'GET' || request.method === 'HEAD') && built) {
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .sendFile('index.html');
    }
    return reply
      .code(404)
      .type('text/plain; charset=utf-8')
      .send(built ? '404 未找到' : 'SiteHall: 前端尚未构建，请运行 npm run build');
  });
}
