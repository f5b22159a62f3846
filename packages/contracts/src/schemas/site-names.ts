/**
 * A site's name (docs/decisions/names.md): the address people share, `{name}.{sites host}` or
 * `/sites/{name}/`. Lowercase letters, digits and single hyphens, starting with a letter (so it never
 * reads as a project id), not a reserved word, and not a look-alike of another site's name: two names
 * with the same skeleton (siteNameSkeleton) are one name.
 */
import { z } from 'zod';
import { ID_MAX } from '../limits.js';
import { projectMessages as m } from '../messages/projects.js';
import { isReservedSiteName, SITE_NAME_MAX, SITE_NAME_MIN, siteNameProblem } from '../names.js';

/** A site name as the API takes it: trimmed and lower-cased, then held to the rules of names.ts. */
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
  project_id: z.coerce.number().int().positive().max(ID_MAX, { error: m.notFound }).optional(),
});
export type SiteNameQuery = z.input<typeof siteNameQuery>;
