/**
 * A site address as a visitor opens it: the API's relative `/sites/{name}/` completed for where the
 * web app was reached (contracts' completeSiteUrl: on the sites port, and under `localhost` an
 * origin of the site's own).
 */
import { completeSiteUrl } from '@sitehall/contracts';

export function absoluteSiteUrl(url: string, sitesPort: number | null | undefined): string {
  return completeSiteUrl(url, window.location.href, sitesPort ?? null);
}
