/**
 * Custom domains (docs/product.md "Custom domains"): what a domain may be, the DTOs of the owner's
 * card and the admin's list, and the body of the add call, shared by server and web app.
 */
import { z } from 'zod';
import { domainMessages as m } from '../messages/domains.js';

/** Domains one project may carry (pending ones included). */
export const CUSTOM_DOMAINS_PER_PROJECT = 10;
/** The label before the domain whose TXT record proves control: `_sitehall.www.example.com`. */
export const DOMAIN_TXT_LABEL = '_sitehall';

/**
 * pending: its DNS has not shown the proof yet; awaiting_approval: verified, waiting for an admin
 * (when the platform requires approval); active: served, and the TLS ask endpoint allows it;
 * not_served: verified (and approved where asked) but not served, for the reason the DTO's
 * `not_served_reason` gives (the platform serves no custom domains, the name is the platform's
 * own, the project is not live).
 */
export const CUSTOM_DOMAIN_STATES = ['pending', 'awaiting_approval', 'active', 'not_served'] as const;
export type CustomDomainState = (typeof CUSTOM_DOMAIN_STATES)[number];
export const CUSTOM_DOMAIN_STATE_LABELS: Record<CustomDomainState, string> = {
  pending: '待验证',
  awaiting_approval: '待批准',
  active: '已生效',
  not_served: '未生效',
};

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain as typed → lower-case ASCII (an internationalised name in its xn-- form), without a
 * trailing dot; null when it is not a domain name of at least two labels (an IP address, a port,
 * a path, a bare name such as `localhost`). The same rule for the form and the server.
 */
export function normalizeDomain(input: string): string | null {
  const typed = input.trim().replace(/\.$/, '');
  if (typed === '' || typed.length > 253 || /[\s/:@?#\\[\]%]/.test(typed)) return null;
  let host: string;
  try {
    host = new URL(`http://${typed}`).hostname;
  } catch {
    return null;
  }
  if (host.length > 253) return null;
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  // The last label is a name, never a number: no IPv4 address passes.
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return null;
  return host;
}

export const addDomainBody = z.object({
  domain: z
    .string({ message: m.domainRequired })
    .trim()
    .min(1, m.domainRequired)
    .max(300, m.domainInvalid)
    .refine((v) => normalizeDomain(v) !== null, m.domainInvalid)
    .transform((v) => normalizeDomain(v)!)
    .describe('域名，如 www.example.com（中文域名会转换为 xn-- 形式）'),
});

const dateTime = z.string().describe('ISO 8601 时间');

export const customDomainDto = z.object({
  id: z.number().int(),
  project_id: z.number().int(),
  domain: z.string(),
  state: z.enum(CUSTOM_DOMAIN_STATES),
  /** What proves control: a TXT record of this name and value. */
  txt_name: z.string().describe('验证用 TXT 记录的名称'),
  txt_value: z.string().describe('验证用 TXT 记录的值'),
  cname_target: z.string().nullable().describe('也可用 CNAME 指向此主机名验证（仅子域名模式）'),
  verified_at: dateTime.nullable(),
  approved_at: dateTime.nullable(),
  created_at: dateTime,
  /**
   * Why the domain is not served, whatever its state, when the reason is not its next step (the
   * check, an approval): the platform serves no custom domains, the name is the platform's, or the
   * project is not live. Null otherwise.
   */
  not_served_reason: z.string().nullable().describe('域名未生效的原因（无则为 null）'),
});
export type CustomDomainDto = z.output<typeof customDomainDto>;

export const projectDomainsData = z.object({
  domains: z.array(customDomainDto),
  /** False without SITES_ORIGIN: the card explains instead of offering the form. */
  available: z.boolean(),
  /**
   * Why the platform offers no custom domains (no SITES_ORIGIN, or SITES_ORIGIN without
   * PUBLIC_URL), in the owner's words; null when it offers them.
   */
  unavailable_reason: z.string().nullable(),
  require_approval: z.boolean(),
  /** Where the domain's A/AAAA or CNAME record must point for visitors to arrive. */
  sites_host: z.string().nullable(),
  /**
   * Whether the project has a live version now: a domain is added only then, and served only
   * while it lasts. Until then the card says so instead of offering the form.
   */
  live: z.boolean(),
  /**
   * What this viewer may do: add domains (the owner, while the project is live), check a pending
   * one's proof (the owner) and remove them (the owner or an admin).
   */
  can_add: z.boolean(),
  can_check: z.boolean(),
  can_remove: z.boolean(),
});
export type ProjectDomainsDto = z.output<typeof projectDomainsData>;

export const customDomainData = z.object({ domain: customDomainDto });

export const adminDomainDto = customDomainDto.extend({
  project_name: z.string(),
  owner_username: z.string(),
});
export type AdminDomainDto = z.output<typeof adminDomainDto>;
export const adminDomainsData = z.object({
  domains: z.array(adminDomainDto),
  require_approval: z.boolean(),
  /**
   * Why this install serves no custom domains (no SITES_ORIGIN, or no PUBLIC_URL), said above the
   * list; null when it serves them.
   */
  unavailable_reason: z.string().nullable().describe('本平台不提供自定义域名的原因（提供时为 null）'),
});
export type AdminDomainsDto = z.output<typeof adminDomainsData>;

/** GET /api/tls/ask?domain=: anything else than a known domain is the same 404. */
export const tlsAskQuery = z.object({ domain: z.string().max(300).optional() });
