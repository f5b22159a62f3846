/**
 * Custom domains (docs/product.md "Custom domains"): the owner's calls under
 * /api/projects/:id/domains, the admin's under /api/admin/domains, and the TLS ask endpoint the
 * proxy in front calls before it gets a certificate (docs/deploy.md "Custom domains and HTTPS").
 */
import { messages } from '@sitehall/contracts';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { NotFound } from '../domain/errors.js';
import { actorOf } from '../http/access.js';
import { route } from '../http/endpoint-routes.js';
import { idParam, metaOf, ok } from '../http/reply.js';

/** Asks per client address per minute: a proxy asks once per new name; a scan is cut short. */
export const TLS_ASKS_PER_MINUTE = 300;

export const domainRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const domains = ctx.services.customDomains;
    const ids = (params: unknown) => {
      const p = params as { id?: string; domainId?: string };
      const projectId = idParam(p.id);
      const domainId = p.domainId === undefined ? projectId : idParam(p.domainId);
      if (projectId === null || domainId === null) throw new NotFound(messages.domain.notFound);
      return { projectId, domainId };
    };

    route(app, 'projectDomains', async (request) =>
      ok(await domains.ofProject(actorOf(request), ids(request.params).projectId)),
    );

    route(app, 'addProjectDomain', async (request, _reply, { body }) => {
      const domain = await domains.add(
        actorOf(request),
        ids(request.params).projectId,
        body.domain,
        metaOf(request),
      );
      return ok({ domain }, messages.domain.added);
    });

    route(app, 'checkProjectDomain', async (request) => {
      const { projectId, domainId } = ids(request.params);
      const { domain, message } = await domains.check(actorOf(request), projectId, domainId, metaOf(request));
      return ok({ domain }, message);
    });

    route(app, 'removeProjectDomain', async (request) => {
      const { projectId, domainId } = ids(request.params);
      await domains.removeOfProject(actorOf(request), projectId, domainId, metaOf(request));
      return ok(null, messages.domain.removed);
    });

    route(app, 'adminDomains', async () => ok(await domains.listAll()));

    route(app, 'approveDomain', async (request) => {
      const { domainId } = ids(request.params);
      const domain = await domains.approve(actorOf(request), domainId, metaOf(request));
      return ok({ domain }, messages.domain.approved);
    });

    route(app, 'removeDomain', async (request) => {
      await domains.removeAny(actorOf(request), ids(request.params).domainId, metaOf(request));
      return ok(null, messages.domain.removed);
    });

    // 200 exactly for a served domain of a live project; the same 404 for everything else.
    route(
      app,
      'tlsAsk',
      async (_request, _reply, { query }) => {
        if (!(await domains.allowsCertificate(query.domain))) throw new NotFound();
        return ok(null);
      },
      { config: { rateLimit: { max: TLS_ASKS_PER_MINUTE, timeWindow: 60_000 } } },
    );
  };
