/** A reference in markup or CSS: root-absolute paths break under /sites/{id}/, missing files break too. */
import type { FileContext } from './context.js';
import { classifyUrl, missingLocal, type Target } from './urls.js';

export function reference(ctx: FileContext, url: string, at: number, based = false): Target {
  const target = classifyUrl(url);
  if (target.kind === 'root' && !ctx.site.rootPathsWork) {
    ctx.add('ref.root-absolute', { url: target.url }, at);
  }
  if (target.kind === 'local' && !based && missingLocal(url, ctx.path, ctx.paths)) {
    ctx.add('ref.missing-file', { url: url.trim().slice(0, 200) }, at);
  }
  return target;
}
