/**
 * Domain errors thrown by services, and the one handler that maps every failure to the JSON
 * envelope of docs/product.md "API shape": { success: false, message, errors? } with a fitting status.
 */
import { format, messages } from '@sitehall/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ZodError } from 'zod';
import { isDatabaseUnavailable } from '../db/postgres-pool.js';
import { BlobNotFound } from '../storage/blob-store.js';
import { isDiskFull } from '../storage/disk-space.js';

const m = messages.common;

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}
export class Invalid extends AppError {
  constructor(field: string | null, message: string, errors?: Record<string, string>) {
    super(400, message, field ? { [field]: message, ...errors } : errors);
  }
}
export class Unauthorized extends AppError {
  constructor(message: string = m.unauthenticated) {
    super(401, message);
  }
}
export class Forbidden extends AppError {
  constructor(message: string = m.forbidden) {
    super(403, message);
  }
}
export class NotFound extends AppError {
  constructor(message: string = m.notFound) {
    super(404, message);
  }
}
export class Conflict extends AppError {
  constructor(message: string, field?: string) {
    super(409, message, field ? { [field]: message } : undefined);
  }
}
export class TooLarge extends AppError {
  constructor(message: string, field?: string) {
    super(413, message, field ? { [field]: message } : undefined);
  }
}
export class TooManyRequests extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, undefined, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** Something the server depends on (Redis, storage) can't be reached: try again later. */
export class ServiceUnavailable extends AppError {
  constructor(message: string = m.unavailable) {
    super(503, message, undefined, { 'retry-after': '5' });
  }
}

/**
 * 507: the server's disk is full (staging, the blob store or SQLite; docs/decisions.md "Disk
 * full"). Not the user's fault, so never a 400; the handler logs it at error level and counts it.
 */
export class InsufficientStorage extends AppError {
  constructor(readonly diskError?: unknown) {
    super(507, m.insufficientStorage);
  }
}

/** Field → first message, from a zod error; the field is the top-level key. */
export function zodFieldErrors(error: ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) errors[key] ??= format(messages.auth.fieldNotAllowed, { field: key });
      continue;
    }
    // An issue about the body itself (an array, a string) names no field.
    if (issue.path.length === 0) continue;
    const field = String(issue.path[0]);
    errors[field] ??=
      issue.message === FALLBACK ? format(messages.auth.fieldInvalid, { field }) : issue.message;
  }
  return errors;
}

/** Marks an issue whose schema gave no message of its own; replaced by a Chinese one above. */
const FALLBACK = '\u0000fallback';
const fallbackMessage = () => FALLBACK;

/**
 * Parses with a contract schema; a failure becomes a 400 with per-field errors. Issues without a
 * message of their own (wrong types, unknown fields, a body that is not an object) still get a
 * Chinese one.
 */
export function parse<T>(
  schema: {
    safeParse(
      v: unknown,
      params?: { error?: () => string },
    ): { success: true; data: T } | { success: false; error: ZodError };
  },
  value: unknown,
): T {
  // No body at all reads as an empty object; a JSON null is a body, and not an object.
  const result = schema.safeParse(value === undefined ? {} : value, { error: fallbackMessage });
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error);
  const first = Object.values(errors)[0];
  throw new AppError(400, first ?? m.badRequest, first ? errors : undefined);
}

const STATUS_MESSAGES: Record<number, string> = {
  400: m.badRequest,
  401: m.unauthenticated,
  403: m.forbidden,
  404: m.notFound,
  408: m.timeout,
  413: m.payloadTooLarge,
  415: m.unsupportedMediaType,
  429: m.tooManyRequests,
};

export function sendError(
  reply: FastifyReply,
  status: number,
  message: string,
  errors?: Record<string, string>,
) {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ success: false, message, ...(errors ? { errors } : {}) });
}

export interface ErrorHandlingHooks {
  /** A request failed because the disk is full (it is answered 507): count it. */
  onDiskFull?(error: unknown): void;
}

export function registerErrorHandling(app: FastifyInstance, hooks: ErrorHandlingHooks = {}): void {
  app.setErrorHandler(
    (error: FastifyError | AppError | ZodError, request: FastifyRequest, reply: FastifyReply) => {
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
        if (error.headers) reply.headers(error.headers);
        return sendError(reply, error.status, error.message, error.errors);
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
        return sendError(reply, 413, m.payloadTooLarge);
      }
      const status = fe.statusCode ?? 500;
      if (status >= 400 && status < 500) {
        if (status === 429 && fe.message) return sendError(reply, 429, m.tooManyRequests);
        return sendError(reply, status, STATUS_MESSAGES[status] ?? m.badRequest);
      }
      request.log.error({ err: error }, 'unhandled error');
      return sendError(reply, 500, m.internal);
    },
  );
}
