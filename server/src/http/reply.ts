import type { FastifyRequest } from 'fastify';
import type { RequestMeta } from '../services/accounts.js';

/** The success envelope of DECISIONS.md "API shape". */
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
