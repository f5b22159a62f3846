/**
 * Routes register from the endpoint table of contracts (packages/contracts/src/endpoints.ts):
 * `route(app, 'login', handler)` takes the method, path and access from the entry and parses the
 * query and JSON body with its schemas before the handler runs, so a handler only does its work.
 * Once every route is registered, `assertEndpointTable` refuses to start the app when a table entry
 * has no route or an /api route has no entry (docs/architecture.md "The endpoint table").
 */
import {
  type EndpointData,
  type EndpointKey,
  type EndpointSchemas,
  endpointSchemas,
  endpoints,
  messages,
  type ParsedBody,
  type ParsedQuery,
} from '@sitehall/contracts';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, parse } from '../domain/errors.js';
import type { ApiRoute } from './access.js';

/** What a handler answers: the success envelope with the entry's data, or the reply itself (files). */
type Answer<K extends EndpointKey> = (typeof endpoints)[K] extends { answers: string }
  ? unknown
  : { success: true; data: EndpointData<K>; message?: string };

export interface EndpointInput<K extends EndpointKey> {
  query: ParsedQuery<K>;
  /** The parsed JSON body; undefined for a multipart request (the handler stages that itself). */
  body: ParsedBody<K>;
}

export type EndpointHandler<K extends EndpointKey> = (
  request: FastifyRequest,
  reply: FastifyReply,
  input: EndpointInput<K>,
) => Promise<Answer<K>>;

/** Registers the handler of one endpoint of the table (on a plugin under the /api prefix). */
export function route<K extends EndpointKey>(
  app: FastifyInstance,
  key: K,
  handler: EndpointHandler<K>,
  /** Route settings beyond the table's (a rate limit of its own). */
  options: { config?: Omit<FastifyContextConfig, 'access'>; bodyLimit?: number } = {},
): void {
  const endpoint = endpoints[key];
  const { query, body }: EndpointSchemas = endpointSchemas[key];
  app.route({
    method: endpoint.method,
    url: endpoint.path,
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    // The body's kind goes with the route: a raw body streams as long as the upload takes
    // (http/request-bodies.ts leaves it alone).
    config: {
      ...options.config,
      access: endpoint.access,
      ...('body' in endpoint ? { bodyKind: endpoint.body } : {}),
      ...('audited' in endpoint ? { audited: true } : {}),
    },
    handler: async (request, reply) => {
      const multipart = typeof request.isMultipart === 'function' && request.isMultipart();
      // A multipart body where the entry takes JSON only is refused: its schema would go unparsed
      // and the handler meet no body at all (a 500 before, on any JSON route).
      if (multipart && body && !('body' in endpoint && endpoint.body === 'json-or-multipart'))
        throw new AppError('unsupported_media_type', messages.common.unsupportedMediaType);
      const input = {
        query: query ? parse(query, request.query) : undefined,
        body: body && !multipart ? parse(body, request.body) : undefined,
      } as EndpointInput<K>;
      if ('status' in endpoint) reply.code(endpoint.status);
      return handler(request, reply, input);
    },
  });
}

/** `METHOD /api/path` of each table entry, in the form the access hook records routes. */
export function endpointRouteNames(): string[] {
  return Object.values(endpoints).map((e) => `${e.method} /api${e.path}`);
}

/**
 * Throws unless the registered /api routes and the endpoint table name the same routes (HEAD,
 * which Fastify adds to each GET, aside).
 */
export function assertEndpointTable(apiRoutes: readonly ApiRoute[]): void {
  const registered = new Set(apiRoutes.filter((r) => r.method !== 'HEAD').map((r) => `${r.method} ${r.url}`));
  const table = new Set(endpointRouteNames());
  const unregistered = [...table].filter((name) => !registered.has(name));
  const undeclared = [...registered].filter((name) => !table.has(name));
  if (unregistered.length > 0) {
    throw new Error(`Endpoints of the table with no route: ${unregistered.join(', ')}`);
  }
  if (undeclared.length > 0) {
    throw new Error(
      `/api routes missing from the endpoint table (contracts endpoints.ts): ${undeclared.join(', ')}`,
    );
  }
}
