/**
 * Who may call a route. Every /api route declares `config.access`; the app refuses to start when
 * one does not, so no route is ever reachable by accident. The session is read from the
 * Authorization header only (never a query string or a cookie) and the role from the database on
 * every request.
 */

import { ENDPOINT_ACCESS, type EndpointAccess, messages } from '@sitehall/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { UserRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { Forbidden, NotFound, Unauthorized } from '../domain/errors.js';
import { tokenScope } from '../policies/token-scope.js';
import { type ApiTokenService, isApiToken } from '../services/api-tokens.js';
import type { SessionService } from '../services/sessions.js';

/** One registered /api route and who may call it (one entry per method). */
export interface ApiRoute {
  method: string;
  url: string;
  access: EndpointAccess;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: EndpointAccess;
    /** The endpoint table's body kind (endpoint-routes.ts), when it names one. */
    bodyKind?: 'multipart' | 'json-or-multipart' | 'raw';
    /** What a body past the route's limit is told (413), when not the generic 请求内容过大. */
    tooLargeMessage?: string;
    /** The endpoint writes an audit entry: it takes from the account's budget (audit-budget.ts). */
    audited?: boolean;
  }
  interface FastifyRequest {
    actor: Actor | null;
    actorUser: UserRow | null;
  }
  interface FastifyInstance {
    /** Every /api route with its declared access, in registration order (the permission matrix). */
    apiRoutes: readonly ApiRoute[];
  }
}

/** The auth scheme is case-insensitive (RFC 9110); the token is what newToken() makes. */
export const BEARER = /^Bearer +([A-Za-z0-9_-]{20,200}) *$/i;

/** The signed-in actor, or a 401 (for handlers of routes whose access is 'user' or 'admin'). */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Unauthorized();
  return request.actor;
}

export function registerAccess(
  app: FastifyInstance,
  sessions: SessionService,
  tokens: ApiTokenService,
): void {
  app.decorateRequest('actor', null);
  app.decorateRequest('actorUser', null);

  const apiRoutes: ApiRoute[] = [];
  app.decorate('apiRoutes', apiRoutes);

  app.addHook('onRoute', (route) => {
    if (route.url !== '/api' && !route.url.startsWith('/api/')) return;
    const access = route.config?.access;
    if (!access || !ENDPOINT_ACCESS.includes(access)) {
      throw new Error(`Route ${route.method} ${route.url} has no declared access rule (config.access)`);
    }
    for (const method of [route.method].flat()) apiRoutes.push({ method, url: route.url, access });
  });

  app.addHook('onRequest', async (request) => {
    // An API address no route has is 404 before its body is read: a malformed JSON body sent there
    // was answered 400 (the not-found handler's request is parsed like any other).
    if (request.is404 && (request.url.startsWith('/api/') || request.url === '/api')) {
      throw new NotFound(messages.common.apiNotFound);
    }
    const access = request.routeOptions.config?.access ?? 'public';
    const header = request.headers.authorization;
    // Only the API knows sessions; site and web-app responses never depend on who is asking.
    if (header && request.url.startsWith('/api/')) {
      const match = BEARER.exec(header);
      const bearerToken = match?.[1];
      const viaToken = bearerToken !== undefined && isApiToken(bearerToken);
      const found = bearerToken ? await (viaToken ? tokens : sessions).authenticate(bearerToken) : null;
      if (found && 'ended' in found) {
        // The account was disabled: the session is over, and its holder is told why (public routes
        // answer as to anyone).
        if (access !== 'public') throw new Unauthorized(messages.auth.accountDisabled);
      } else if (found) {
        const actor: Actor = {
          id: found.user.id,
          username: found.user.username,
          role: found.user.role,
          via: 'sessionId' in found ? 'session' : 'token',
          sessionId: 'sessionId' in found ? found.sessionId : 0,
        };
        request.actor = { ...actor, role: tokenScope.roleOf(actor) };
        request.actorUser = found.user;
      } else if (access !== 'public') {
        // A bearer token that doesn't work (any more) is a session that is over; another scheme,
        // or no token, was never a sign-in.
        const bearer = /^bearer +\S/i.test(header);
        if (viaToken) throw new Unauthorized(messages.deploy.tokenInvalid);
        throw new Unauthorized(bearer ? messages.common.sessionExpired : messages.common.unauthenticated);
      }
    }
    if (access === 'public') return;
    if (!request.actor) throw new Unauthorized();
    if (!tokenScope.allows(request.actor, request.method, request.routeOptions.url ?? request.url)) {
      throw new Forbidden(messages.deploy.tokenForbidden);
    }
    if (access === 'admin' && request.actor.role !== 'admin') throw new Forbidden(messages.common.adminOnly);
  });
}
