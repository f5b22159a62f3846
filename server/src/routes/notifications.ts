/** The signed-in account's notices under /api/notifications (docs/notifications.md): its own only. */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, ok } from '../http/reply.js';
import { paginate } from '../presenters/pagination.js';

export const notificationRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const { notifications } = ctx.services;

    route(app, 'notifications', async (request, _reply, { query: q }) => {
      const { rows, total, unread } = await notifications.list(actorOf(request), q);
      return ok({
        notifications: rows,
        unread_count: unread,
        pagination: paginate(q.page, q.page_size, total),
      });
    });

    route(app, 'unreadNotifications', async (request) => {
      return ok({ unread_count: await notifications.unreadCount(actorOf(request)) });
    });

    route(app, 'readNotification', async (request) => {
      const id = idParam((request.params as { id?: string }).id);
      if (id === null) throw new NotFound(messages.notification.notFound);
      return ok({ marked: await notifications.markRead(actorOf(request), id) });
    });

    route(app, 'readAllNotifications', async (request) => {
      return ok({ marked: await notifications.markAllRead(actorOf(request)) }, messages.notification.allRead);
    });
  };
