/**
 * What /sites and /preview serve, cached: a project's live deployment (invalidated whenever it
 * changes: review, publish, takedown, delete) and each deployment's file table (immutable, so
 * cached until evicted). The hot path answers from memory; a miss costs one or two queries.
 */
import type { DB } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/postgres-pool.js';
import * as deploymentFiles from '../repositories/deployment-files.js';
import * as deploymentsTable from '../repositories/deployments.js';
import * as projects from '../repositories/projects.js';
import type { SiteFile } from '../serve/index.js';
import { alwaysHears, type HearsChanges, maxAge } from './cache-lifetime.js';

export interface DeploymentIndex {
  deploymentId: number;
  projectId: number;
  entryFile: string | null;
  lastModified: Date;
  files: Map<string, SiteFile>;
}

/** At most this many file records across all cached deployments. */
const MAX_CACHED_FILES = 200_000;
/**
 * A cached live pointer is re-read after this long even without an invalidation: a safety net for
 * changes this process did not make (another process on the same PostgreSQL, a manual fix).
 */
const LIVE_POINTER_TTL_MS = 60_000;
const MAX_LIVE_POINTERS = 100_000;
/**
 * While the database can't be reached, a cached live pointer is used whatever its age (a site
 * served before the outage stays up), and re-checked this often rather than on every request.
 * An invalidation still drops it: a takedown heard from another instance is not undone.
 */
const STALE_RECHECK_MS = 5_000;

export function createSiteIndex(db: DB, opts: { hearsChanges?: HearsChanges } = {}) {
  const hears = opts.hearsChanges ?? alwaysHears;
  const live = new Map<number, { deploymentId: number | null; at: number }>();
  const deployments = new Map<number, DeploymentIndex>();
  let cachedFiles = 0;
  let generation = 0;

  async function loadDeployment(deploymentId: number): Promise<DeploymentIndex | null> {
    const cached = deployments.get(deploymentId);
    if (cached) {
      // Refresh its place in the LRU order.
      deployments.delete(deploymentId);
      deployments.set(deploymentId, cached);
      return cached;
    }
    const d = await deploymentsTable.servingFacts(db, deploymentId);
    if (!d) return null;
    const rows = await deploymentFiles.servingRows(db, deploymentId);
    const index: DeploymentIndex = {
      deploymentId: d.id,
      projectId: d.project_id,
      entryFile: d.entry_file,
      lastModified: new Date(d.reviewed_at ?? d.created_at),
      files: new Map(
        rows.map((r) => [
          r.path,
          { path: r.path, size: Number(r.size), mime_type: r.mime_type, sha256: r.sha256 },
        ]),
      ),
    };
    deployments.set(deploymentId, index);
    cachedFiles += index.files.size;
    for (const [id, old] of deployments) {
      if (cachedFiles <= MAX_CACHED_FILES || id === deploymentId) break;
      deployments.delete(id);
      cachedFiles -= old.files.size;
    }
    return index;
  }

  return {
    /** The live deployment of a project, or null when it is not live (or doesn't exist). */
    async liveOf(projectId: number): Promise<DeploymentIndex | null> {
      const cached = live.get(projectId);
      let deploymentId = cached?.deploymentId;
      const at = Date.now();
      if (cached === undefined || at - cached.at > maxAge(LIVE_POINTER_TTL_MS, hears)) {
        const startedAt = generation;
        let pointer: number | null | undefined;
        try {
          pointer = await projects.livePointer(db, projectId);
        } catch (err) {
          const kept = live.get(projectId);
          if (!kept || !isDatabaseUnavailable(err)) throw err;
          kept.at = Date.now() - LIVE_POINTER_TTL_MS + STALE_RECHECK_MS;
          return kept.deploymentId == null ? null : loadDeployment(kept.deploymentId);
        }
        // Live means a live deployment, whatever the newest upload's review says.
        deploymentId = pointer ?? null;
        // Don't cache an answer that an invalidation overtook while the query ran.
        if (startedAt === generation) {
          if (live.size >= MAX_LIVE_POINTERS) live.clear();
          live.set(projectId, { deploymentId, at });
        }
      }
      return deploymentId == null ? null : loadDeployment(deploymentId);
    },
    /**
     * The answer of liveOf when memory has it all (a fresh pointer and its file table), without
     * a turn of the event loop; undefined when liveOf must be asked.
     */
    peekLive(projectId: number): DeploymentIndex | null | undefined {
      const cached = live.get(projectId);
      if (!cached || Date.now() - cached.at > maxAge(LIVE_POINTER_TTL_MS, hears)) return undefined;
      if (cached.deploymentId === null) return null;
      return deployments.get(cached.deploymentId);
    },
    deployment: loadDeployment,
    /** Forgets a project's live pointer (it was approved, taken down, deleted...). */
    invalidate(projectId: number): void {
      generation++;
      live.delete(projectId);
    },
    invalidateAll(): void {
      generation++;
      live.clear();
    },
  };
}
export type SiteIndex = ReturnType<typeof createSiteIndex>;
