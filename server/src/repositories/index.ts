/**
 * Every table's repository, made once per database (context.ts): what a service is given, and
 * what the service harness doubles (server/test/support/service-harness.ts). All of them have one
 * shape: every function takes the executor first, the Kysely `db` or the transaction the caller
 * holds (`deployments.markReviewed(trx, …)`, `users.byId(db, id)`). The repositories that depend
 * on the engine are made for its dialect; none holds the database (docs/architecture.md "Wiring").
 */
import type { Dialect as MigrationDialect } from '../db/dialect.js';
import { createApiTokensRepository } from './api-tokens.js';
import { createAuditRepository } from './audit.js';
import * as contentCheckTraces from './content-check-traces.js';
import { createCustomDomainsRepository } from './custom-domains.js';
import * as deploymentFiles from './deployment-files.js';
import * as deployments from './deployments.js';
import { createDeploysRepository, heldBytes, heldBytesByOwner } from './deploys.js';
import { createLeasesRepository } from './leases.js';
import * as mailOutbox from './mail-outbox.js';
import * as notifications from './notifications.js';
import * as previewTokens from './preview-tokens.js';
import * as projectDailyViews from './project-daily-views.js';
import { createProjectsRepository } from './projects.js';
import { createRenderJobsRepository } from './render-jobs.js';
import * as reviewComments from './review-comments.js';
import { createSessionsRepository } from './sessions.js';
import * as settings from './settings.js';
import * as siteAnalytics from './site-analytics.js';
import * as siteNames from './site-names.js';
import * as uploadEvents from './upload-events.js';
import * as uploadKeys from './upload-keys.js';
import { createUsersRepository, existsForNewRows } from './users.js';

/** `ownBloom`: see createProjectsRepository. */
export function createRepositories(dialect: MigrationDialect, ownBloom?: (searchText: string) => string) {
  return {
    users: { existsForNewRows, ...createUsersRepository(dialect) },
    sessions: createSessionsRepository(),
    apiTokens: createApiTokensRepository(),
    audit: createAuditRepository(),
    projects: createProjectsRepository(dialect, ownBloom),
    deployments,
    deploymentFiles,
    reviewComments,
    previewTokens,
    projectDailyViews,
    uploadEvents,
    uploadKeys,
    settings,
    leases: createLeasesRepository(dialect),
    deploys: { heldBytes, heldBytesByOwner, ...createDeploysRepository(dialect) },
    renderJobs: createRenderJobsRepository(),
    customDomains: createCustomDomainsRepository(),
    siteNames,
    siteAnalytics,
    notifications,
    mailOutbox,
    contentCheckTraces,
  };
}
export type Repositories = ReturnType<typeof createRepositories>;
