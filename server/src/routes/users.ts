import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok } from '../http/reply.js';
import { presentApiToken } from '../presenters/api-token.js';
import { paginate } from '../presenters/pagination.js';
import { presentAdminUser, presentUser } from '../presenters/user.js';

/** Account administration under /api/admin/users (admin only). */
export const userRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { accounts } = ctx.services;
    const userId = (params: unknown) => {
      const id = idParam((params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.auth.userNotFound);
      return id;
    };

    route(app, 'users', async (_request, _reply, { query: q }) => {
      const { rows, total } = await accounts.list({
        page: q.page,
        pageSize: q.page_size,
        search: q.search,
        role: q.role,
      });
      const { used, platformQuota } = await ctx.services.quota.ofAccounts(rows.map((u) => u.id));
      return ok({
        users: rows.map((u) => presentAdminUser(u, used.get(u.id) ?? 0, platformQuota)),
        pagination: paginate(q.page, q.page_size, total),
      });
    });

    route(app, 'updateUser', async (request, _reply, { body }) => {
      const user = await accounts.updateUser(actorOf(request), userId(request.params), body, metaOf(request));
      const done = Object.keys(body).length === 1 && 'storage_quota_bytes' in body;
      return ok(
        { user: presentUser(user) },
        done ? messages.auth.storageQuotaSaved : messages.auth.userUpdated,
      );
    });

    route(app, 'resetPassword', async (request) => {
      const { user, password } = await accounts.resetPassword(
        actorOf(request),
        userId(request.params),
        metaOf(request),
      );
      return ok({ password, user: presentUser(user) }, messages.auth.passwordReset);
    });

    route(app, 'unlockUser', async (request) => {
      const user = await accounts.unlock(actorOf(request), userId(request.params), metaOf(request));
      return ok({ user: presentUser(user) }, messages.auth.userUnlocked);
    });

    route(app, 'userApiTokens', async (request) => {
      const tokens = await ctx.services.apiTokens.listOfUser(userId(request.params));
      return ok({ tokens: tokens.map(presentApiToken) });
    });

    route(app, 'revokeUserApiToken', async (request) => {
      const tokenId = idParam((request.params as { tokenId?: string }).tokenId);
      if (tokenId === null) throw new NotFound(messages.deploy.tokenNotFound);
      await ctx.services.apiTokens.revokeOfUser(
        actorOf(request),
        userId(request.params),
        tokenId,
        metaOf(request),
      );
      return ok(null, messages.deploy.tokenRevoked);
    });

    route(app, 'deleteUser', async (request) => {
      await accounts.deleteUser(actorOf(request), userId(request.params), metaOf(request));
      return ok(null, messages.auth.userDeleted);
    });
  };
