/**
 * Domain errors: what a service, ingest or a policy throws when a request can't be done. Each
 * carries the status the HTTP layer answers with; `http/errors.ts` turns them into the JSON
 * envelope of docs/product.md "API shape". Nothing here knows about Fastify.
 */
import { format, messages } from '@sitehall/contracts';
import type { ZodError } from 'zod';

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
