import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok } from '../http/reply.js';
import { presentApiToken } from '../presenters/api-token.js';
import { presentUser } from '../presenters/user.js';

export const authRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { accounts } = ctx.services;

    route(app, 'login', async (request, _reply, { body }) => {
      const { session, user } = await accounts.login(body, metaOf(request));
      return ok(
        { token: session.token, expires_at: session.expiresAt, user: presentUser(user) },
        messages.auth.loginSuccess,
      );
    });

    route(app, 'logout', async (request) => {
      await accounts.logout(actorOf(request), metaOf(request));
      return ok(null, messages.auth.logoutSuccess);
    });

    route(app, 'refresh', async (request) => {
      const { session, user } = await accounts.refresh(actorOf(request), metaOf(request));
      return ok({ token: session.token, expires_at: session.expiresAt, user: presentUser(user) });
    });

    route(app, 'profile', async (request) => {
      const user = await accounts.profile(actorOf(request).id);
      return ok({ user: presentUser(user) });
    });

    route(app, 'updateProfile', async (request, _reply, { body }) => {
      const { user, passwordChanged } = await accounts.updateProfile(actorOf(request), body, metaOf(request));
      return ok(
        { user: presentUser(user) },
        passwordChanged ? messages.auth.passwordChanged : messages.auth.profileUpdated,
      );
    });

    route(app, 'register', async (request, _reply, { body }) => {
      const { user, password } = await accounts.register(actorOf(request), body, metaOf(request));
      return ok({ password, user: presentUser(user) }, messages.auth.registerSuccess);
    });

    // Personal API tokens (docs/decisions/deploys.md "API tokens"): a session only, never a token.
    route(app, 'createApiToken', async (request, _reply, { body }) => {
      const token = await ctx.services.apiTokens.create(actorOf(request), body.name, metaOf(request));
      return ok(token, messages.deploy.tokenCreated);
    });

    route(app, 'apiTokens', async (request) => {
      const tokens = await ctx.services.apiTokens.list(actorOf(request));
      return ok({ tokens: tokens.map(presentApiToken) });
    });

    route(app, 'revokeApiToken', async (request) => {
      const id = idParam((request.params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.deploy.tokenNotFound);
      await ctx.services.apiTokens.revoke(actorOf(request), id, metaOf(request));
      return ok(null, messages.deploy.tokenRevoked);
    });
  };
