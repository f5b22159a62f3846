/**
 * A second deploy service over a test app's database, store and services: another instance, or
 * this one after a restart, which knows an open deploy only by its row and a version only by its
 * rows (services/deploys.ts keeps both in memory).
 */
import { createDeploysRepository } from '../../src/repositories/deploys.js';
import { createDeployService } from '../../src/services/deploys.js';
import type { TestApp } from '../helpers.js';

export function deployServiceBeside(t: TestApp) {
  return createDeployService({
    db: t.ctx.db,
    deploys: createDeploysRepository(t.database.dialect),
    leases: t.ctx.cluster.leases,
    store: t.ctx.store,
    gate: t.ctx.cluster.gate,
    settings: t.ctx.services.settings,
    quota: t.ctx.services.quota,
    uploads: t.ctx.services.uploads,
    dataDir: t.dataDir,
  });
}
