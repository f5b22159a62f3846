/**
 * The one handler that maps every failure (domain errors from `domain/errors.ts`, validation,
 * outages) to the JSON envelope of docs/product.md "API shape": { success: false, message,
 * errors? } with a fitting status. At a site address (/sites, /preview, the sites host) the same
 * status and message come as a small HTML page instead (serve/site-answer.ts sitePlatformPage):
 * a visitor's browser shows it, where it would show raw JSON.
 */
import { messages } from '@sitehall/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../db/postgres-pool.js';
import {
  AppError,
  type ErrorKind,
  InsufficientStorage,
  ServiceUnavailable,
  zodFieldErrors,
} from '../domain/errors.js';

const m = messages.common;

import { sendSitePage, siteNotFoundPage, sitePlatformPage } from '../serve/index.js';
import { BlobNotFound } from '../storage/blob-store.js';
import { isDiskFull } from '../storage/disk-space.js';
import { isSiteRequest } from './headers.js';

const STATUS_MESSAGES: Record<number, string> = {
  400: m.badRequest,
  401: m.unauthenticated,
  403: m.forbidden,
  404: m.notFound,
  408: m.timeout,
  413: m.payloadTooLarge,
  414: m.uriTooLong,
  415: m.unsupportedMediaType,
  429: m.tooManyRequests,
};

/** The Chinese message of a 4xx status Fastify or the router answers by itself. */
export function statusMessage(status: number): string {
  return STATUS_MESSAGES[status] ?? m.badRequest;
}

/** The one place a domain error's kind becomes an HTTP status. */
const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  timeout: 408,
  conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  storage_full: 507,
};

/** Retry-After and Connection: close, from what the error says. */
function headersOf(error: AppError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.closeConnection) headers.connection = 'close';
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  return headers;
}

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  errors?: Record<string, string>,
) {
  // A site address gets a page; the site headers (sandbox, nosniff) are added by its onSend hook.
  if (isSiteRequest(reply.request)) {
    // A missing thing is the site's 404, byte for byte, whatever found it missing.
    const showcase = reply.server.siteShowcaseFor?.(reply.request) ?? null;
    const page =
      status === 404 ? siteNotFoundPage(showcase) : sitePlatformPage(status, message, { showcase });
    return reply.send(sendSitePage(reply, page));
  }
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ success: false, message, ...(errors ? { errors } : {}) });
}

export interface ErrorHandlingHooks {
  /** A request failed because the disk is full (it is answered 507): count it. */
  onDiskFull?(error: unknown): void;
  /** The showcase's address for a page at a site address (serve/site-hosts.ts showcaseUrl). */
  showcaseFor?(request: FastifyRequest): string | null;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** ErrorHandlingHooks.showcaseFor, on the root instance (child contexts inherit it). */
    siteShowcaseFor: ((request: FastifyRequest) => string | null) | null;
  }
}

export function registerErrorHandling(app: FastifyInstance, hooks: ErrorHandlingHooks = {}): void {
  app.decorate('siteShowcaseFor', hooks.showcaseFor ?? null);
  app.setErrorHandler(
    (error: FastifyError | AppError | ZodError, request: FastifyRequest, reply: FastifyReply) => {
      // The client went away while its body was read (a reset socket's ECONNRESET is a network
      // error like a lost database connection's): nobody to answer, and no outage to report.
      if (request.raw.destroyed && (error as { code?: unknown }).code === 'ECONNRESET') {
        request.log.debug({ err: error }, 'client went away');
        return sendError(reply, 400, m.badRequest);
      }
      // PostgreSQL unreachable (or a statement it gave up on): try again later, never a 500.
      if (isDatabaseUnavailable(error)) {
        request.log.warn({ err: error }, 'database unavailable');
        error = new ServiceUnavailable();
      }
      if (error instanceof InsufficientStorage || isDiskFull(error)) {
        const cause = error instanceof InsufficientStorage ? (error.diskError ?? error) : error;
        request.log.error({ err: cause }, 'disk full: request refused with 507');
        hooks.onDiskFull?.(cause);
        return sendError(reply, 507, m.insufficientStorage);
      }
      if (error instanceof AppError) {
        reply.headers(headersOf(error));
        return sendError(reply, STATUS_OF_KIND[error.kind], error.message, error.errors);
      }
      // A stored file gone before its answer began (its project deleted meanwhile): gone, not a fault.
      if (error instanceof BlobNotFound) {
        request.log.warn({ err: error }, 'blob not found');
        return sendError(reply, 404, m.notFound);
      }
      if (error instanceof ZodError) {
        const errors = zodFieldErrors(error);
        return sendError(reply, 400, Object.values(errors)[0] ?? m.badRequest, errors);
      }
      const fe = error as FastifyError;
      if (
        fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
        (fe.statusCode === 400 && error instanceof SyntaxError)
      ) {
        return sendError(reply, 400, m.invalidJson);
      }
      if (fe.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return sendError(reply, 400, m.invalidJson);
      if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe.code === 'FST_REQ_FILE_TOO_LARGE') {
        return sendError(reply, 413, request.routeOptions.config?.tooLargeMessage ?? m.payloadTooLarge);
      }
      const status = fe.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        if (status === 429 && fe.message) return sendError(reply, 429, m.tooManyRequests);
        return sendError(reply, status, statusMessage(status));
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendError(reply, 500, m.internal);
    },
  );
}
