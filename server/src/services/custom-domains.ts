/**
 * Custom domains (docs/product.md "Custom domains"): an owner attaches a domain to a live project
 * and proves control of it in DNS; once verified (and approved, when the platform requires it) the
 * domain serves the project's live site and the TLS ask endpoint lets the proxy in front get it a
 * certificate (docs/deploy.md "Custom domains and HTTPS"). The served domains are kept in memory
 * (serve/custom-domain-hosts.ts) and reloaded as a whole on every change, here and, through the
 * invalidation bus, on the other instances.
 *
 * Proof: a TXT record `_sitehall.{domain}` holding the domain's own random token, or (with
 * SITES_SUBDOMAINS) a CNAME to the project's own host p{id}.{sites host}. A CNAME to the shared
 * sites host proves nothing (anyone's domain may point there), so it is not accepted.
 */

import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import {
  type AdminDomainDto,
  CUSTOM_DOMAINS_PER_PROJECT,
  type CustomDomainDto,
  type CustomDomainState,
  DOMAIN_TXT_LABEL,
  format,
  messages,
  normalizeDomain,
} from '@sitehall/contracts';
import { type DB, now } from '../db/database.js';
import type { CustomDomainRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { Conflict, Invalid, NotFound, ServiceUnavailable } from '../domain/errors.js';
import type { RequestMeta } from '../domain/request-meta.js';
import { projectPolicy } from '../policies/project.js';
import { type CustomDomainsRepository, isDuplicateDomain } from '../repositories/custom-domains.js';
import type { ProjectWithOwner } from '../repositories/projects.js';
import type { CustomDomainHosts } from '../serve/index.js';
import type { AuditService } from './audit.js';
import type { SettingsService } from './settings.js';

const m = messages.domain;

/** How long one DNS question may take, and how often it is asked, before the resolver counts as down. */
const DNS_TIMEOUT_MS = 3_000;
const DNS_TRIES = 2;
/** Answers that mean "no such record" rather than "no answer at all". */
const NO_RECORD_CODES = new Set(['ENODATA', 'ENOTFOUND', 'ENONAME']);

/** What the DNS showed of a domain's proof. */
export type DnsProof =
  | { kind: 'verified'; by: 'txt' | 'cname' }
  | { kind: 'no-record' }
  | { kind: 'wrong-value' }
  | { kind: 'wrong-cname'; found: string }
  | { kind: 'unreachable' };

/** Resolved names as DNS returns them, compared without case or a trailing dot. */
const bare = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * Asks DNS (the servers given, or the system's) for the proof of one domain: a TXT record of
 * `_sitehall.{domain}` whose value is `token`, or a CNAME of the domain to `cnameTarget`.
 */
export async function lookUpProof(
  servers: readonly string[],
  domain: string,
  token: string,
  cnameTarget: string | null,
): Promise<DnsProof> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  if (servers.length > 0) resolver.setServers([...servers]);
  const ask = async <T>(question: () => Promise<T[]>): Promise<T[] | 'unreachable'> => {
    try {
      return await question();
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      return NO_RECORD_CODES.has(code) ? [] : 'unreachable';
    }
  };
  try {
    const txt = await ask(() => resolver.resolveTxt(`${DOMAIN_TXT_LABEL}.${domain}`));
    if (txt === 'unreachable') return { kind: 'unreachable' };
    if (txt.some((chunks) => chunks.join('') === token)) return { kind: 'verified', by: 'txt' };
    if (cnameTarget) {
      const cname = await ask(() => resolver.resolveCname(domain));
      if (cname === 'unreachable') return { kind: 'unreachable' };
      if (cname.some((name) => bare(name) === cnameTarget)) return { kind: 'verified', by: 'cname' };
      if (txt.length === 0 && cname.length > 0) return { kind: 'wrong-cname', found: bare(cname[0]!) };
    }
    return txt.length > 0 ? { kind: 'wrong-value' } : { kind: 'no-record' };
  } finally {
    resolver.cancel();
  }
}

export interface CustomDomainOptions {
  db: DB;
  repo: CustomDomainsRepository;
  settings: Pick<SettingsService, 'get'>;
  audit: Pick<AuditService, 'record'>;
  /** The projects service's lookup: a project the actor may see, else 404. */
  visible(actor: Actor, id: number): Promise<ProjectWithOwner>;
  /** Whether a project has a live version now (services/site-index.ts). */
  isLive(projectId: number): Promise<boolean>;
  hosts: CustomDomainHosts;
  /** SITES_ORIGIN; without it no domain can be added (there is no origin to serve one as). */
  sitesOrigin: string | undefined;
  /** PUBLIC_URL, the app's own address: its host is the platform's, never a project's. */
  publicUrl?: string | undefined;
  sitesSubdomains: boolean;
  dnsResolvers: readonly string[];
  /** Tells the other instances to reload their served domains. */
  publish(): void;
  /** Tests put a resolver of their own in place of the DNS. */
  lookUp?: typeof lookUpProof;
}

export function createCustomDomainService(opts: CustomDomainOptions) {
  const { db, repo, audit, hosts } = opts;
  const lookUp = opts.lookUp ?? lookUpProof;
  const sitesHost = opts.sitesOrigin ? new URL(opts.sitesOrigin).hostname.toLowerCase() : null;
  const appHost = opts.publicUrl ? new URL(opts.publicUrl).hostname.toLowerCase() : null;
  /**
   * Domains are offered, and served, only when the platform knows both its hosts: the sites host
   * and the app's (PUBLIC_URL). Without PUBLIC_URL the app's host is any name not the sites host's,
   * so a project could take it with a TXT record there, and its site, served unsandboxed on the
   * app's origin, read the signed-in token (outside review r3, as f108890d's with PUBLIC_URL set).
   */
  const offered = sitesHost !== null && appHost !== null;
  /** What the owner is told when none is offered: which of the two hosts is missing. */
  const unavailableReason = !sitesHost ? m.unavailable : !appHost ? m.unavailableNoPublicUrl : null;
  let loads = 0;

  const requireApproval = async () => (await opts.settings.get()).customDomainsRequireApproval;

  /** p{id}.{sites host}, the only CNAME target that proves control (subdomain mode). */
  const cnameTarget = (projectId: number) =>
    opts.sitesSubdomains && sitesHost ? `p${projectId}.${sitesHost}` : null;

  /**
   * Why a domain is not served though its proof and approval would have it served: the platform
   * serves none (no SITES_ORIGIN, or no PUBLIC_URL: what the server logs at start), the name is
   * a platform host, or the project is not live. Null when nothing but its own next step (the
   * check, an approval) stands in the way. A domain verified before PUBLIC_URL was required read
   * 已生效 while it was not served (outside review r4).
   */
  function notServedReason(row: CustomDomainRow, live: boolean): string | null {
    if (!sitesHost) return m.notServedNoSitesOrigin;
    if (!appHost) return m.notServedNoPublicUrl;
    if (reserved(row.domain)) return m.notServedReserved;
    return row.verified_at && !live ? m.notServedNotLive : null;
  }

  function stateOf(row: CustomDomainRow, approval: boolean, reason: string | null): CustomDomainState {
    if (!row.verified_at) return 'pending';
    if (approval && !row.approved_at) return 'awaiting_approval';
    return reason ? 'not_served' : 'active';
  }

  /** `live`: whether the domain's project is live now (a domain is served only while it is). */
  function present(row: CustomDomainRow, approval: boolean, live: boolean): CustomDomainDto {
    const reason = notServedReason(row, live);
    return {
      id: row.id,
      project_id: row.project_id,
      domain: row.domain,
      state: stateOf(row, approval, reason),
      not_served_reason: reason,
      txt_name: `${DOMAIN_TXT_LABEL}.${row.domain}`,
      txt_value: row.token,
      cname_target: cnameTarget(row.project_id),
      verified_at: row.verified_at,
      approved_at: row.approved_at,
      created_at: row.created_at,
    };
  }

  /** Reads the served domains again and puts them in place (the last load started wins). */
  async function reload(): Promise<void> {
    const mine = ++loads;
    const rows = await repo.served(db, await requireApproval());
    // A row a platform host holds (claimed before it was reserved) is never served as a site, nor
    // any row while the app's own host is unknown (verified before PUBLIC_URL was required).
    if (mine === loads)
      hosts.replace(
        offered ? rows.filter((r) => !reserved(r.domain)).map((r) => [r.domain, r.project_id] as const) : [],
      );
  }

  /** After a change here: this instance's map, then the others'. */
  async function changed(): Promise<void> {
    await reload();
    opts.publish();
  }

  /** Whether the project has a version live now: a domain is added, and served, only then. */
  const isLive = async (project: ProjectWithOwner) =>
    project.live_deployment_id !== null && (await opts.isLive(project.id));

  /** A domain of a project the actor may see (404 for any other, as for a missing one). */
  async function domainOf(actor: Actor, projectId: number, domainId: number) {
    const project = await opts.visible(actor, projectId);
    const row = await repo.byId(db, domainId);
    if (!row || row.project_id !== project.id) throw new NotFound(m.notFound);
    return { project, row };
  }

  /**
   * Platform hosts no project may take: the sites host and every name under it, and the app's own
   * host (PUBLIC_URL): a site served there, without the sandbox, would read the signed-in token.
   */
  function reserved(domain: string): boolean {
    if (appHost !== null && domain === appHost) return true;
    return sitesHost !== null && (domain === sitesHost || domain.endsWith(`.${sitesHost}`));
  }

  async function remove(actor: Actor, row: CustomDomainRow, meta: RequestMeta): Promise<void> {
    if (!(await repo.remove(db, row.id))) throw new NotFound(m.notFound);
    await audit.record({
      actor,
      action: 'project.domain_remove',
      targetType: 'project',
      targetId: row.project_id,
      detail: { domain_id: row.id, domain: row.domain },
      ip: meta.ip,
    });
    await changed();
  }

  return {
    reload,
    /** Reloads when a project whose domain is served changed (deleted: its rows are gone). */
    projectChanged(projectId: number): void {
      if (hosts.hasProject(projectId)) reload().catch(() => undefined);
    },

    async ofProject(actor: Actor, projectId: number) {
      const project = await opts.visible(actor, projectId);
      const [rows, approval, live] = await Promise.all([
        repo.ofProject(db, project.id),
        requireApproval(),
        isLive(project),
      ]);
      return {
        domains: rows.map((r) => present(r, approval, live)),
        available: offered,
        unavailable_reason: unavailableReason,
        require_approval: approval,
        sites_host: sitesHost,
        live,
        can_add: offered && live && projectPolicy.edit(actor, project),
        can_check: offered && projectPolicy.edit(actor, project),
        can_remove: projectPolicy.delete(actor, project),
      };
    },

    async add(actor: Actor, projectId: number, typed: string, meta: RequestMeta): Promise<CustomDomainDto> {
      const project = await opts.visible(actor, projectId);
      if (!projectPolicy.edit(actor, project)) throw new NotFound(messages.project.notFound);
      if (!offered) throw new Conflict(unavailableReason ?? m.unavailable);
      const domain = normalizeDomain(typed);
      if (!domain) throw new Invalid('domain', m.domainInvalid);
      if (reserved(domain)) throw new Invalid('domain', m.domainReserved);
      if (!(await isLive(project))) throw new Conflict(m.notLive);
      const existing = await repo.ofProject(db, project.id);
      if (existing.some((r) => r.domain === domain)) throw new Conflict(m.alreadyOnProject, 'domain');
      if (existing.length >= CUSTOM_DOMAINS_PER_PROJECT)
        throw new Conflict(format(m.tooMany, { n: CUSTOM_DOMAINS_PER_PROJECT }));
      const holder = await repo.verifiedOf(db, domain);
      if (holder) throw new Conflict(m.takenElsewhere, 'domain');
      let row: CustomDomainRow;
      try {
        row = await repo.insert(db, {
          project_id: project.id,
          domain,
          token: `sitehall-verify=${randomBytes(18).toString('base64url')}`,
          verified_at: null,
          approved_at: null,
          approved_by: null,
          created_by: actor.id,
          created_at: now(),
        });
      } catch (err) {
        // The same domain added twice at once on this project.
        if (isDuplicateDomain(err)) throw new Conflict(m.alreadyOnProject, 'domain');
        throw err;
      }
      await audit.record({
        actor,
        action: 'project.domain_add',
        targetType: 'project',
        targetId: project.id,
        detail: { domain_id: row.id, domain },
        ip: meta.ip,
      });
      return present(row, await requireApproval(), true);
    },

    /**
     * The 检查 button: asks DNS for the proof. Verified → served at once (or once approved); any
     * failure is a message saying which (no record, another value, a resolver that did not answer).
     */
    async check(
      actor: Actor,
      projectId: number,
      domainId: number,
      meta: RequestMeta,
    ): Promise<{ domain: CustomDomainDto; message: string }> {
      const { project, row } = await domainOf(actor, projectId, domainId);
      if (!projectPolicy.edit(actor, project)) throw new NotFound(m.notFound);
      if (!offered) throw new Conflict(unavailableReason ?? m.unavailable);
      const [approval, live] = await Promise.all([requireApproval(), isLive(project)]);
      if (row.verified_at) return { domain: present(row, approval, live), message: m.alreadyVerified };
      const holder = await repo.verifiedOf(db, row.domain);
      if (holder) throw new Conflict(m.takenElsewhere);
      const target = cnameTarget(project.id);
      const proof = await lookUp(opts.dnsResolvers, row.domain, row.token, target);
      const txtName = `${DOMAIN_TXT_LABEL}.${row.domain}`;
      if (proof.kind === 'unreachable') throw new ServiceUnavailable(m.resolverUnreachable);
      if (proof.kind === 'no-record') throw new Invalid(null, format(m.noRecord, { name: txtName }));
      if (proof.kind === 'wrong-value') throw new Invalid(null, format(m.wrongValue, { name: txtName }));
      if (proof.kind === 'wrong-cname')
        throw new Invalid(null, format(m.wrongCname, { found: proof.found, target: target ?? '' }));
      const at = now();
      try {
        await repo.markVerified(db, row.id, at);
      } catch (err) {
        // Another project's claim was verified between the look-up above and this write.
        if (isDuplicateDomain(err)) throw new Conflict(m.takenElsewhere);
        throw err;
      }
      await audit.record({
        actor,
        action: 'project.domain_verify',
        targetType: 'project',
        targetId: project.id,
        detail: { domain_id: row.id, domain: row.domain, by: proof.by },
        ip: meta.ip,
      });
      await changed();
      const verified = { ...row, verified_at: at };
      return {
        domain: present(verified, approval, live),
        message: approval ? m.verifiedAwaitingApproval : m.verified,
      };
    },

    /** The owner (or an admin on the project's page) removes a domain: it stops being served at once. */
    async removeOfProject(actor: Actor, projectId: number, domainId: number, meta: RequestMeta) {
      const { project, row } = await domainOf(actor, projectId, domainId);
      if (!projectPolicy.delete(actor, project)) throw new NotFound(m.notFound);
      await remove(actor, row, meta);
    },

    async listAll(): Promise<{
      domains: AdminDomainDto[];
      require_approval: boolean;
      unavailable_reason: string | null;
    }> {
      const [rows, approval] = await Promise.all([repo.listAll(db), requireApproval()]);
      // Each project asked once, however many domains it carries.
      const projects = [...new Set(rows.map((r) => r.project_id))];
      const live = new Map(
        await Promise.all(projects.map(async (id) => [id, await opts.isLive(id)] as const)),
      );
      return {
        domains: rows.map((r) => ({
          ...present(r, approval, live.get(r.project_id) ?? false),
          project_name: r.project_name,
          owner_username: r.owner_username,
        })),
        require_approval: approval,
        // The admin's page said nothing of a feature this install does not offer (the default).
        unavailable_reason: !sitesHost ? m.adminUnavailable : !appHost ? m.notServedNoPublicUrl : null,
      };
    },

    async approve(actor: Actor, domainId: number, meta: RequestMeta): Promise<CustomDomainDto> {
      const row = await repo.byId(db, domainId);
      if (!row) throw new NotFound(m.notFound);
      const at = now();
      if (!(await repo.approve(db, row.id, actor.id, at))) throw new NotFound(m.notFound);
      await audit.record({
        actor,
        action: 'project.domain_approve',
        targetType: 'project',
        targetId: row.project_id,
        detail: { domain_id: row.id, domain: row.domain },
        ip: meta.ip,
      });
      await changed();
      const [approval, live] = await Promise.all([requireApproval(), opts.isLive(row.project_id)]);
      return present({ ...row, approved_at: at, approved_by: actor.id }, approval, live);
    },

    async removeAny(actor: Actor, domainId: number, meta: RequestMeta): Promise<void> {
      const row = await repo.byId(db, domainId);
      if (!row) throw new NotFound(m.notFound);
      await remove(actor, row, meta);
    },

    /**
     * The TLS ask (GET /api/tls/ask): true exactly for a served domain whose project is live now.
     * One answer for everything else, so it tells nothing of pending, unapproved or unknown names.
     */
    async allowsCertificate(typed: string | undefined): Promise<boolean> {
      if (!typed) return false;
      const domain = normalizeDomain(typed);
      const projectId = domain === null ? null : hosts.projectOfDomain(domain);
      return projectId !== null && (await opts.isLive(projectId));
    },
  };
}
export type CustomDomainService = ReturnType<typeof createCustomDomainService>;
