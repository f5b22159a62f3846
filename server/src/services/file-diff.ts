/**
 * One text file of a project's live version and of its newest one, for the review detail's line
 * diff (docs/decisions/review.md "Review detail"). The web app computes the diff (jsdiff); this reads
 * both texts, only for text types and only up to FILE_DIFF_MAX_BYTES each.
 */
import { type AdminFileDiffData, FILE_DIFF_MAX_BYTES, messages } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import type { DeploymentFileRow } from '../db/types.js';
import { Invalid, NotFound } from '../domain/errors.js';
import { TEXT_DIFF_TYPES } from '../domain/text-diff.js';
import type { Repositories } from '../repositories/index.js';
import type { BlobStore } from '../storage/index.js';

export function createFileDiff(deps: {
  db: DB;
  repos: Pick<Repositories, 'projects' | 'deployments' | 'deploymentFiles'>;
  store: BlobStore;
}) {
  const { db, store } = deps;
  const { projects, deployments, deploymentFiles } = deps.repos;

  async function textOf(file: DeploymentFileRow): Promise<string> {
    const chunks: Buffer[] = [];
    try {
      if (Number(file.size) > 0) {
        for await (const chunk of await store.read(file.sha256)) chunks.push(chunk as Buffer);
      }
    } catch {
      // A blob gone missing or unreadable: the page says so, the server goes on.
      throw new NotFound(messages.review.contentCheck.sourceFailed);
    }
    // Bounded by FILE_DIFF_MAX_BYTES before the read.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/^\ufeff/, '');
  }

  return {
    /** `path` in the live and the newest version, while they differ (the version diff's pair). */
    async between(id: number, path: string): Promise<AdminFileDiffData> {
      const p = await projects.byId(db, id);
      if (!p) throw new NotFound(messages.project.notFound);
      const liveId = p.live_deployment_id;
      const newestId = p.latest_deployment_id;
      if (liveId === null || newestId === null || liveId === newestId) {
        throw new NotFound(messages.review.fileDiff.noVersions);
      }
      const [live, newest, liveFiles, newestFiles] = await Promise.all([
        deployments.byId(db, liveId),
        deployments.byId(db, newestId),
        deploymentFiles.ofDeployment(db, liveId),
        deploymentFiles.ofDeployment(db, newestId),
      ]);
      if (!live || !newest) throw new NotFound(messages.review.fileDiff.noVersions);
      const before = liveFiles.find((f) => f.path === path);
      const after = newestFiles.find((f) => f.path === path);
      const file = after ?? before;
      if (!file) throw new NotFound(messages.review.contentCheck.sourceNotFound);
      if (!TEXT_DIFF_TYPES.has(file.extension)) {
        throw new Invalid('path', messages.review.contentCheck.sourceNotText);
      }
      const sizes = [before, after].map((f) => (f ? Number(f.size) : null));
      const tooLarge = sizes.some((size) => size !== null && size > FILE_DIFF_MAX_BYTES);
      const [oldText, newText] = tooLarge
        ? [null, null]
        : await Promise.all([before ? textOf(before) : null, after ? textOf(after) : null]);
      return {
        path,
        from_version: live.version,
        to_version: newest.version,
        old_size: sizes[0] ?? null,
        new_size: sizes[1] ?? null,
        too_large: tooLarge,
        old_text: oldText,
        new_text: newText,
      };
    },
  };
}

export type FileDiffService = ReturnType<typeof createFileDiff>;
