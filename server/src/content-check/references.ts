/**
 * A reference in markup or CSS: a file the upload lacks (a name whose case differs, a file on the
 * uploader's own computer), and a root-absolute path where sites live under /sites/{name}/.
 */
import type { FileContext } from './context.js';
import { classifyUrl, isOwnComputerPath, isSitePrefixed, missingPath, type Target } from './urls.js';

export function reference(ctx: FileContext, url: string, at: number, based = false, lookUp = true): Target {
  if (isOwnComputerPath(url)) {
    ctx.add('ref.own-computer', { url: url.trim().slice(0, 200) }, at);
    return { kind: 'local' };
  }
  const target = classifyUrl(url);
  // `/sites/{name}/x`: the site's real path there (what a router's build sets as its base).
  if (target.kind === 'root' && !ctx.site.rootPathsWork && !isSitePrefixed(url)) {
    ctx.add('ref.root-absolute', { url: target.url }, at);
  }
  const own = target.kind === 'root' || (target.kind === 'local' && !based);
  const missing = own && lookUp ? missingPath(url, target.kind === 'root' ? '' : ctx.path, ctx.paths) : null;
  if (missing !== null) {
    const shown = url.trim().slice(0, 200);
    const variant = ctx.caseVariant(missing);
    if (variant) ctx.add('ref.missing-file-case', { url: shown, suggestion: spelled(shown, variant) }, at);
    else ctx.add('ref.missing-file', { url: shown }, at);
  }
  return target;
}

/** The reference as written with the file's own case (`./Images/A.PNG` → `./images/a.png`), else the file's path. */
function spelled(url: string, variant: string): string {
  const bare = url.split('#', 1)[0]!.split('?', 1)[0]!;
  if (!bare.toLowerCase().endsWith(variant.toLowerCase())) {
    const name = variant.slice(variant.lastIndexOf('/') + 1);
    return bare.toLowerCase().endsWith(name.toLowerCase())
      ? `${bare.slice(0, -name.length)}${name}`
      : variant;
  }
  return `${bare.slice(0, bare.length - variant.length)}${variant}`;
}
