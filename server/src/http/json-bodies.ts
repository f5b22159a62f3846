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
      next.push(...Object.values(node));
    }
    level = next;
  }
  return null;
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
      else done(err, value);
    });
  });
}
