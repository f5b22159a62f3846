import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestMeta } from '../domain/request-meta.js';

/** The success envelope of docs/product.md "API shape". */
export function ok<T>(data: T, message?: string) {
  return message ? { success: true as const, data, message } : { success: true as const, data };
}

export function metaOf(request: FastifyRequest): RequestMeta {
  return { ip: request.ip, userAgent: request.headers['user-agent'] };
}

/** A positive integer route id, or null. */
export function idParam(value: unknown): number | null {
  const s = String(value ?? '');
  if (!/^[1-9][0-9]{0,9}$/.test(s)) return null;
  const n = Number(s);
  return n <= 2_147_483_647 ? n : null;
}

/** The answer to any method but GET and HEAD under /sites and /preview. */
export function sendSiteMethodNotAllowed(reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header('allow', 'GET, HEAD')
    .type('text/plain; charset=utf-8')
    .send('405 不支持的请求方法');
}
