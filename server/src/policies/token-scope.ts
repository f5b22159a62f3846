/**
 * What an API token may do (docs/decisions/deploys.md "API tokens"): act as its owner for the owner's own
 * projects and deploys, nothing else. Administration, the token list itself, and account changes
 * (profile, password, sign-out, refresh) need a session from the web app, whatever the owner's role,
 * so a token leaked from a CI job can't widen itself or take over the account.
 */
import type { Actor } from '../domain/actor.js';

/** Routes a token may call, as registered (Fastify's route URL, method). */
const TOKEN_ROUTES: readonly { method: string; url: RegExp }[] = [
  { method: 'GET', url: /^\/api\/auth\/profile$/ },
  { method: '*', url: /^\/api\/projects(\/|$)/ },
  { method: '*', url: /^\/api\/deploys(\/|$)/ },
];

export const tokenScope = {
  /** Whether this actor may call the route (a session may call anything its access level allows). */
  allows(actor: Actor, method: string, routeUrl: string): boolean {
    if (actor.via !== 'token') return true;
    return TOKEN_ROUTES.some((r) => (r.method === '*' || r.method === method) && r.url.test(routeUrl));
  },
  /** A token acts as a plain user of its owner's account: an admin's token has no admin powers. */
  roleOf(actor: Actor): Actor['role'] {
    return actor.via === 'token' ? 'user' : actor.role;
  },
};
