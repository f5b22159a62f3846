import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestMeta } from '../domain/request-meta.js';

/** The success envelope of docs/product.md "API shape". */
export function ok<T>(data: T, message?: string) {
  return message ? { success: true as const, data, message } : { success: true as const, data };
}

export function metaOf(request: FastifyRequest): RequestMeta {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

/** A project download's zip, streamed as an attachment under its own name, never cached. */
export function sendZip(reply: FastifyReply, zip: { stream: Readable; filename: string }) {
  return reply
    .type('application/zip')
    .header('content-disposition', `attachment; filename="${zip.filename}"`)
    .header('cache-control', 'no-store')
    .send(zip.stream);
}

/** Routes read their ids with it; it lives in domain/ so serve/ can too. */
export { idParam } from '../domain/ids.js';

/** The answer to any method but GET and HEAD under /sites and /preview. */
export function sendSiteMethodNotAllowed(reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header('allow', 'GET, HEAD')
    .type('text/plain; charset=utf-8')
    .send('405 不支持的请求方法');
}
