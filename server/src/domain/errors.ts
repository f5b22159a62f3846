/**
 * Domain errors: what a service, ingest or a policy throws when a request can't be done. Each says
 * what went wrong (its `kind`) with the data an answer needs (field errors, when to retry, that
 * the connection should not be reused); `http/errors.ts` alone decides the status and headers and
 * builds the JSON envelope of docs/product.md "API shape". Nothing here knows about HTTP.
 */
import { format, messages } from '@sitehall/contracts';
import type { ZodError } from 'zod';

const m = messages.common;

export type ErrorKind =
  /** The input is wrong: a field, a body, an upload. */
  | 'invalid'
  /** No valid session. */
  | 'unauthenticated'
  | 'forbidden'
  /** Missing, or not the actor's to see (the same answer, so others' things look missing). */
  | 'not_found'
  /** The thing's current state does not allow it. */
  | 'conflict'
  | 'too_large'
  /** Too many attempts: try again after retryAfterSeconds. */
  | 'rate_limited'
  /** The client went silent while sending. */
  | 'timeout'
  | 'unsupported_media_type'
  /** Something the server depends on can't be reached, or the server is stopping. */
  | 'unavailable'
  /** The server's disk is full: not the user's fault. */
  | 'storage_full';

/** The kinds that are the server's condition rather than something the request did wrong. */
const SERVER_SIDE: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['unavailable', 'storage_full']);

export interface AppErrorOptions {
  /** Field → message, shown next to the form's fields. */
  errors?: Record<string, string>;
  /** When the client may try again (rate limits, outages). */
  retryAfterSeconds?: number;
  /** The request's connection must not carry another one (its body was abandoned half-read). */
  closeConnection?: boolean;
}

export class AppError extends Error {
  readonly errors?: Record<string, string>;
  readonly retryAfterSeconds?: number;
  readonly closeConnection: boolean;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.closeConnection = options.closeConnection ?? false;
  }

  /** The server's own condition (an outage, a full disk), not a refusal of what the user sent. */
  get serverSide(): boolean {
    return SERVER_SIDE.has(this.kind);
  }
}
export class Invalid extends AppError {
  constructor(field: string | null, message: string, errors?: Record<string, string>) {
    super('invalid', message, { errors: field ? { [field]: message, ...errors } : errors });
  }
}
export class Unauthorized extends AppError {
  constructor(message: string = m.unauthenticated) {
    super('unauthenticated', message);
  }
}
export class Forbidden extends AppError {
  constructor(message: string = m.forbidden) {
    super('forbidden', message);
  }
}
export class NotFound extends AppError {
  constructor(message: string = m.notFound) {
    super('not_found', message);
  }
}
export class Conflict extends AppError {
  constructor(message: string, field?: string) {
    super('conflict', message, { errors: field ? { [field]: message } : undefined });
  }
}
export class TooLarge extends AppError {
  constructor(message: string, field?: string) {
    super('too_large', message, { errors: field ? { [field]: message } : undefined });
  }
}
export class TooManyRequests extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message, { retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
  }
}

/** Something the server depends on (Redis, storage) can't be reached: try again later. */
export class ServiceUnavailable extends AppError {
  constructor(message: string = m.unavailable, options: { closeConnection?: boolean } = {}) {
    super('unavailable', message, { retryAfterSeconds: 5, ...options });
  }
}

/**
 * The server's disk is full (staging, the blob store or SQLite; docs/decisions/faults.md "Disk full").
 * Not the user's fault, so never "invalid"; the handler logs it at error level and counts it.
 */
export class InsufficientStorage extends AppError {
  constructor(readonly diskError?: unknown) {
    super('storage_full', m.insufficientStorage);
  }
}

/** Field → first message, from a zod error; the field is the top-level key. */
/**
 * A configuration the process can't run with (an environment variable, an S3 bucket that answers
 * no): not an AppError, no request ever gets it; main.ts and the command-line tools print its
 * message and stop. config.ts re-exports it.
 */
export class ConfigError extends Error {}

export function zodFieldErrors(error: ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  // The first message a field gets is its own. Own properties only: a field named like one of
  // Object.prototype's (constructor, toString…) found the inherited one "already set" and got no
  // message of its own, the answer then only 请求参数无效 (session 64's fuzzing).
  const add = (field: string, message: () => string) => {
    if (!Object.hasOwn(errors, field))
      Object.defineProperty(errors, field, {
        value: message(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add(key, () => format(messages.auth.fieldNotAllowed, { field: key }));
      continue;
    }
    // An issue about the body itself (an array, a string) names no field.
    if (issue.path.length === 0) continue;
    const field = String(issue.path[0]);
    add(field, () =>
      issue.message === FALLBACK ? format(messages.auth.fieldInvalid, { field }) : issue.message,
    );
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
  throw new AppError('invalid', first ?? m.badRequest, { errors: first ? errors : undefined });
}
