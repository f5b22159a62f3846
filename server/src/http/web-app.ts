/**
 * Serves the built web app: hashed assets with long caching, and index.html for every client
 * route (React Router decides what to show). Unknown /api paths answer the JSON envelope instead.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { sendError } from './errors.js';
import { allowScriptsWithNonce, isSiteContentPath } from './headers.js';
import { sendSiteMethodNotAllowed } from './reply.js';

/**
 * What the build writes as every script and module preload tag's nonce (web/vite.config.ts
 * `html.cspNonce`); each answer gets a fresh one in its place, which its CSP names.
 */
const NONCE_PLACEHOLDER = 'SITEHALL_CSP_NONCE';

export async function registerWebApp(app: FastifyInstance, webDist: string): Promise<void> {
  const indexFile = path.join(webDist, 'index.html');
  const built = fs.existsSync(indexFile);
  // Read once at start (a new build means a restart), split where the nonce goes.
  const indexParts = built ? fs.readFileSync(indexFile, 'utf8').split(NONCE_PLACEHOLDER) : [];
  if (built) {
    await app.register(fastifyStatic, {
      root: webDist,
      wildcard: false,
      index: false,
      // index.html is only ever sent with its nonce filled in, below.
      allowedPath: (pathName) => pathName !== '/index.html',
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
      const nonce = randomBytes(16).toString('base64');
      allowScriptsWithNonce(reply, nonce);
      // Never stored: a cached copy would carry a nonce that an attacker could have read.
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(indexParts.join(nonce));
    }
    return reply
      .code(404)
      .type('text/plain; charset=utf-8')
      .send(built ? '404 未找到' : 'SiteHall: 前端尚未构建，请运行 npm run build');
  });
}
