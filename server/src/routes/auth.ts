import { createTokenBody, loginBody, messages, registerBody, updateProfileBody } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound, parse } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { idParam, metaOf, ok } from '../http/reply.js';
import { presentApiToken } from '../presenters/api-token.js';
import { presentUser } from '../presenters/user.js';

export const authRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { accounts } = ctx.services;

    app.post('/auth/login', { config: { access: 'public' } }, async (request) => {
      const body = parse(loginBody, request.body);
      const { session, user } = await accounts.login(body, metaOf(request));
      return ok(
        { token: session.token, expires_at: session.expiresAt, user: presentUser(user) },
        messages.auth.loginSuccess,
      );
    });

    app.post('/auth/logout', { config: { access: 'user' } }, async (request) => {
      await accounts.logout(actorOf(request), metaOf(request));
      return ok(null, messages.auth.logoutSuccess);
    });

    app.post('/auth/refresh', { config: { access: 'user' } }, async (request) => {
      const { session, user } = await accounts.refresh(actorOf(request), metaOf(request));
      return ok({ token: session.token, expires_at: session.expiresAt, user: presentUser(user) });
    });

    app.get('/auth/profile', { config: { access: 'user' } }, async (request) => {
      const user = await accounts.profile(actorOf(request).id);
      return ok({ user: presentUser(user) });
    });

    app.put('/auth/profile', { config: { access: 'user' } }, async (request) => {
      const body = parse(updateProfileBody, request.body);
      const { user, passwordChanged } = await accounts.updateProfile(actorOf(request), body, metaOf(request));
      return ok(
        { user: presentUser(user) },
        passwordChanged ? messages.auth.passwordChanged : messages.auth.profileUpdated,
      );
    });

    app.post('/auth/register', { config: { access: 'admin' } }, async (request, reply) => {
      const body = parse(registerBody, request.body);
      const { user, password } = await accounts.register(actorOf(request), body, metaOf(request));
      reply.code(201);
      return ok({ password, user: presentUser(user) }, messages.auth.registerSuccess);
    });

    // Personal API tokens (docs/decisions.md "API tokens"): a session only, never a token.
    app.post('/auth/tokens', { config: { access: 'user' } }, async (request, reply) => {
      const body = parse(createTokenBody, request.body);
      const token = await ctx.services.apiTokens.create(actorOf(request), body.name, metaOf(request));
      reply.code(201);
      return ok(token, messages.deploy.tokenCreated);
    });

    app.get('/auth/tokens', { config: { access: 'user' } }, async (request) => {
      const tokens = await ctx.services.apiTokens.list(actorOf(request));
      return ok({ tokens: tokens.map(presentApiToken) });
    });

    app.delete('/auth/tokens/:id', { config: { access: 'user' } }, async (request) => {
      const id = idParam((request.params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.deploy.tokenNotFound);
      await ctx.services.apiTokens.revoke(actorOf(request), id, metaOf(request));
      return ok(null, messages.deploy.tokenRevoked);
    });
  };
