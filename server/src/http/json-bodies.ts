/**
 * The app's JSON body parser: Fastify's own (secure-json-parse, refusing `__proto__` and
 * `constructor.prototype` keys), with the refusal of such a key told apart from a body that is not
 * JSON. Fastify answers both with one error; the client then read 请求内容不是有效的 JSON for a
 * body that is valid JSON, which a developer could not act on.
 */
import { format, messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { Invalid } from '../domain/errors.js';

/**
 * The first key secure-json-parse refuses in `text`, or null when there is none (or the text is
 * not JSON). JSON.parse keeps a `__proto__` key as an own property, so it can be seen.
 */
export function forbiddenKeyIn(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  let level: unknown[] = [value];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const node of level) {
      if (node === null || typeof node !== 'object') continue;
      if (Object.hasOwn(node, '__proto__')) return '__proto__';
      const ctor = Object.hasOwn(node, 'constructor') ? (node as { constructor: unknown }).constructor : null;
      if (ctor !== null && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype'))
        return 'constructor.prototype';
      // One push per value: a spread of a 130,000-element array overflows the call stack.
      for (const v of Object.values(node)) next.push(v);
    }
    level = next;
  }
  return null;
}

/** A JSON escape of a surrogate (`\\ud800`–`\\udfff`): only such text can hold a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;
/** A surrogate not in a pair (in a `u` pattern a pair is one code point, never Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Whether a parsed body holds a string (a value or a key) with a lone surrogate. Such a string is
 * valid JSON but no Unicode text: it is checked as sent and stored otherwise (SQLite keeps its
 * invalid UTF-8 bytes and reads them back as U+FFFD, PostgreSQL gets U+FFFD), so a project name
 * or a token name passed the look-alike rule and was shown as '���' (outside review r3).
 */
export function holdsLoneSurrogate(value: unknown): boolean {
  let level: unknown[] = [value];
  while (level.length > 0) {
    const next: unknown[] = [];
    for (const node of level) {
      if (typeof node === 'string') {
        if (LONE_SURROGATE.test(node)) return true;
      } else if (node !== null && typeof node === 'object') {
        for (const [key, v] of Object.entries(node)) {
          if (LONE_SURROGATE.test(key)) return true;
          next.push(v);
        }
      }
    }
    level = next;
  }
  return false;
}

export function registerJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    parse(request, text, (err: Error | null, value?: unknown) => {
      // Only a refused body is looked at again: a valid one costs nothing more.
      const refused = (err as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY';
      const key = refused ? forbiddenKeyIn(text) : null;
      if (key) done(new Invalid(null, format(messages.common.forbiddenJsonKey, { name: key })), undefined);
      // Only a body that escapes a surrogate is walked: any other costs one scan of its text.
      else if (!err && SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value))
        done(new Invalid(null, messages.common.loneSurrogate), undefined);
      else done(err, value);
    });
  });
}
