/**
 * Preview links: /preview/{token}/ shows one deployment (the newest, usually pending review) to
 * whoever has the link, until it expires. Tokens are 128-bit random, stored hashed, bound to one
 * deployment; making a new one revokes the links the same person made for the project before (an
 * admin's look at a project in review doesn't cut off the link its owner has shared).
 */
import { randomBytes } from 'node:crypto';
import { type DeploymentStatus, messages, type PreviewTokenDto } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Actor } from '../domain/actor.js';
import { Conflict, NotFound } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { previewUrl, type SiteUrlOptions } from '../domain/site-urls.js';
import type { Repositories } from '../repositories/index.js';
import type { AuditService } from './audit.js';
import { hashToken } from './sessions.js';
import type { SettingsService } from './settings.js';

export const PREVIEW_TOKEN = /^[A-Za-z0-9_-]{22,64}$/;

/** Versions a preview may show: waiting for review (or replaced while waiting), or approved. */
const PREVIEWABLE: DeploymentStatus[] = ['pending', 'superseded', 'approved'];
/** deployments.content_risk of a high-risk check (migration 006). */
const HIGH_RISK = 4;

export function createPreviewService(
  db: DB,
  settings: SettingsService,
  audit: AuditService,
  repos: Pick<Repositories, 'projects' | 'deployments' | 'previewTokens'>,
  urls: SiteUrlOptions = {},
) {
  const { projects, deployments, previewTokens } = repos;
  return {
    async create(
      actor: Actor,
      project: { id: number; latest_deployment_id: number | null; live_deployment_id: number | null },
      meta: RequestMeta,
    ): Promise<PreviewTokenDto> {
      const deploymentId = project.latest_deployment_id ?? project.live_deployment_id;
      if (!deploymentId) throw new NotFound(messages.project.notFound);
      // What review refused (or took down) is not shown to anyone through a link either.
      const version = await deployments.byId(db, deploymentId);
      const status = version?.status;
      if (!status || !PREVIEWABLE.includes(status)) throw new Conflict(messages.project.previewRejected);
      // A version the content check rates high, not yet approved, is shown to reviewers only: a
      // link of its owner's would host it on the platform's sites origin for anyone it is sent to.
      if (actor.role !== 'admin' && status !== 'approved' && version?.content_risk === HIGH_RISK)
        throw new Conflict(messages.project.previewHighRisk);
      const { previewTtlSeconds } = await settings.get();
      // 128 bits in lower-case hex: a host name carries it as it is (pv-{token}, a preview's own host).
      const token = randomBytes(16).toString('hex');
      const at = now();
      const expiresAt = new Date(Date.now() + previewTtlSeconds * 1000).toISOString();
      await db.transaction().execute(async (trx) => {
        // Two requests at once (PostgreSQL runs them side by side) would each revoke only the
        // links committed before them and both stay valid: the project's row orders them.
        if (!(await projects.byIdForChange(trx, project.id))) throw new NotFound(messages.project.notFound);
        await previewTokens.revokeOf(trx, project.id, actor.id);
        await previewTokens.insert(trx, {
          project_id: project.id,
          deployment_id: deploymentId,
          token_hash: hashToken(token),
          created_by: actor.id,
          created_at: at,
          expires_at: expiresAt,
          revoked: 0,
        });
      });
      await audit.record({
        actor,
        action: 'project.preview_link',
        targetType: 'project',
        targetId: project.id,
        ip: meta.ip,
      });
      return {
        token,
        preview_url: previewUrl(token, urls),
        expires_in_seconds: previewTtlSeconds,
        expires_at: expiresAt,
      };
    },

    /** The deployment a live (unexpired, unrevoked) token shows, or null. */
    async resolve(token: string): Promise<{ deploymentId: number; projectId: number } | null> {
      if (!PREVIEW_TOKEN.test(token)) return null;
      // A link stops working as soon as its version is rejected or taken down, its project is
      // taken down, a newer version of a project it was replaced in is decided, or the account
      // that made it is disabled: a preview is not a way around a review decision
      // (docs/decisions/serving.md "Preview links").
      const row = await previewTokens.findUsable(db, hashToken(token), now(), PREVIEWABLE);
      return row ? { deploymentId: row.deployment_id, projectId: row.project_id } : null;
    },

    /** Removes tokens that can never open anything again: expired or revoked (jobs/preview-purge.ts). */
    async purge(): Promise<number> {
      return previewTokens.deleteDead(db, now());
    },
  };
}
export type PreviewService = ReturnType<typeof createPreviewService>;
