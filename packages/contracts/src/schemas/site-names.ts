/**
 * A site's name (docs/decisions/names.md): the address people share, `{name}.{sites host}` or
 * `/sites/{name}/`. Lowercase letters, digits and single hyphens, starting with a letter (so it never
 * reads as a project id), not a reserved word, and not a look-alike of another site's name: two names
 * with the same skeleton (siteNameSkeleton) are one name.
 */
import { z } from 'zod';
import { projectMessages as m } from '../messages/projects.js';
import { format } from '../messages.js';
import { PREVIEW_HOST_LABEL } from '../site-urls.js';

export const SITE_NAME_MIN = 3;
/** Within a DNS label's 63, with room for nothing else: a name is one label of the sites host. */
export const SITE_NAME_MAX = 40;
/** How long a renamed site's old name keeps leading to it (and stays its own); then anyone may take it. */
export const SITE_NAME_HOLD_DAYS = 30;

/**
 * Names that would read as the platform's own (a host, a page, an address people trust) or as
 * infrastructure. Compared by skeleton, so `a-p-i` and `adm1n`'s kind are caught too.
 */
export const RESERVED_SITE_NAMES: readonly string[] = [
  'www',
  'admin',
  'administrator',
  'api',
  'static',
  'sites',
  'site',
  'assets',
  'cli',
  'mail',
  'email',
  'smtp',
  'imap',
  'pop',
  'pop3',
  'ftp',
  'sftp',
  'ssh',
  'git',
  'dns',
  'ns',
  'ns1',
  'ns2',
  'mx',
  'vpn',
  'app',
  'apps',
  'dashboard',
  'console',
  'login',
  'logout',
  'signin',
  'signup',
  'register',
  'auth',
  'oauth',
  'sso',
  'account',
  'accounts',
  'user',
  'users',
  'profile',
  'preview',
  'previews',
  'cdn',
  'media',
  'img',
  'images',
  'files',
  'upload',
  'uploads',
  'download',
  'downloads',
  'docs',
  'help',
  'support',
  'status',
  'blog',
  'dev',
  'test',
  'staging',
  'prod',
  'beta',
  'localhost',
  'root',
  'sitehall',
  'security',
  'billing',
  'webmail',
  'autoconfig',
  'autodiscover',
  'abuse',
  'postmaster',
  'hostmaster',
  'webmaster',
  'noreply',
  'official',
  'system',
  'server',
  'proxy',
  'cache',
  'metrics',
  'health',
  'healthz',
  'readyz',
  'openapi',
  'thumbnails',
  'notifications',
  'config',
  'public',
  'private',
  'internal',
  'review',
  'showcase',
  'home',
  'index',
  'example',
  'wpad',
  'isatap',
];

const SHAPE = /^[a-z][a-z0-9-]*$/;

/**
 * What a name looks like to a reader, after Unicode's confusable skeletons (UTS #39) narrowed to the
 * characters a name may hold: hyphens dropped, `0` as `o`, `1` as `l`, `rn` as `m`, `vv` as `w`.
 * `my-club`, `myc1ub` and `rnyclub` are all `myclub`.
 */
export function siteNameSkeleton(name: string): string {
  return name
    .toLowerCase()
    .replace(/-/g, '')
    .replace(/0/g, 'o')
    .replace(/1/g, 'l')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}

const RESERVED_SKELETONS = new Set(RESERVED_SITE_NAMES.map(siteNameSkeleton));

/**
 * The skeleton of `p` and a number (the numeric `p17` hosts of unnamed sites): `p17`, and what
 * reads as it (`p-17`, `pl7`, `p1-7`), whose skeletons are the same.
 */
const NUMBERED_HOST_SKELETON = /^p[l2-9][ol2-9]*$/;

/** A reserved word, `p` and digits (both by skeleton: what reads as one is one), or a preview's label. */
export function isReservedSiteName(name: string): boolean {
  const skeleton = siteNameSkeleton(name);
  return (
    /^p[0-9]+$/.test(name) ||
    NUMBERED_HOST_SKELETON.test(skeleton) ||
    RESERVED_SKELETONS.has(skeleton) ||
    PREVIEW_HOST_LABEL.test(name)
  );
}

/** The Chinese refusal of a name's form, or null when it may be asked for (taken or not). */
export function siteNameProblem(name: string): string | null {
  if (name.length < SITE_NAME_MIN) return m.siteNameTooShort;
  if (name.length > SITE_NAME_MAX) return m.siteNameTooLong;
  if (!SHAPE.test(name) || name.endsWith('-') || name.includes('--')) return m.siteNameInvalid;
  if (isReservedSiteName(name)) return format(m.siteNameReserved, { name });
  return null;
}

/** A site name as the API takes it: trimmed and lower-cased, then held to the rules above. */
export const siteName = z
  .string({ error: m.siteNameInvalid })
  .trim()
  .toLowerCase()
  .superRefine((name, ctx) => {
    const problem = siteNameProblem(name);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * A name made from text that is already ASCII (a project name, or its pinyin): runs of anything but
 * letters and digits become one hyphen, a leading digit gets `site-` before it, the length is cut to
 * the bounds, and a reserved result gets `-site` after it. Null when nothing usable is left.
 */
export function siteNameFrom(text: string): string | null {
  let slug = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') return null;
  if (!/^[a-z]/.test(slug)) slug = `site-${slug}`;
  slug = slug.slice(0, SITE_NAME_MAX).replace(/-+$/, '');
  if (slug.length < SITE_NAME_MIN) slug = `${slug}-site`;
  if (isReservedSiteName(slug)) slug = `${slug.slice(0, SITE_NAME_MAX - 5)}-site`;
  return siteNameProblem(slug) === null ? slug : null;
}

/** GET /api/projects/site-name: check a name (`name`), or suggest one from a project name (`from`). */
export const siteNameQuery = z.object({
  name: z.string().max(200).optional(),
  from: z.string().max(200).optional(),
  /** The project being renamed: its own names are free to it. */
  project_id: z.coerce.number().int().positive().optional(),
});
export type SiteNameQuery = z.input<typeof siteNameQuery>;
