/**
 * Routes that write an audit entry for the signed-in account (the endpoint table's `audited`) take
 * from the account's one budget of audited writes before their handler runs, and give it back when
 * they answer an error (domain/audit-budget.ts). Administrators are not held to it: their actions
 * are the ones the log is for, and an admin's API token acts as a user (token-scope.ts) and counts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuditBudget } from '../domain/audit-budget.js';

const taken = new WeakSet<FastifyRequest>();

export function registerAuditBudget(app: FastifyInstance, budget: AuditBudget): void {
  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.config?.audited !== true) return;
    const actor = request.actor;
    if (!actor || actor.role === 'admin') return;
    await budget.take(actor.id);
    taken.add(request);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (!taken.has(request) || reply.statusCode < 400) return;
    const actor = request.actor;
    if (actor) await budget.giveBack(actor.id);
  });
}
