/**
 * Which project a folder deploys to (`sitehall link`, as `netlify link` does): a small file in the
 * working folder, `.sitehall/project.json`, holding the server's address and the project's id.
 * `deploy` without `--project` uses it; the first deploy of a new project writes it. A link made for
 * another server is not used there (docs/decisions/deploys.md "CLI project link").
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeFolders } from './fs-errors.js';

export interface ProjectLink {
  url: string;
  project_id: number;
  name: string;
}

export const LINK_FOLDER = '.sitehall';

export function linkFile(cwd = process.cwd()): string {
  return path.join(cwd, LINK_FOLDER, 'project.json');
}

/** The saved link, or undefined when there is none (or it is not one this version can read). */
export function readLink(cwd = process.cwd()): ProjectLink | undefined {
  try {
    const link = JSON.parse(fs.readFileSync(linkFile(cwd), 'utf8')) as Partial<ProjectLink>;
    if (typeof link.url === 'string' && Number.isInteger(link.project_id) && (link.project_id ?? 0) > 0) {
      return { url: link.url, project_id: link.project_id!, name: String(link.name ?? '') };
    }
  } catch {
    // No link yet, or a damaged file: as if unlinked.
  }
  return undefined;
}

export function writeLink(link: ProjectLink, cwd = process.cwd()): string {
  const file = linkFile(cwd);
  makeFolders(path.dirname(file));
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(link, null, 2)}\n`);
  fs.renameSync(temp, file);
  return file;
}

export function removeLink(cwd = process.cwd()): boolean {
  const file = linkFile(cwd);
  if (!fs.existsSync(file)) return false;
  fs.rmSync(file, { force: true });
  return true;
}

/** Same server: the addresses compared without a trailing slash. */
export function sameServer(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const key = (u: string) => {
    try {
      const parsed = new URL(u);
      return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
    } catch {
      return u.replace(/\/+$/, '');
    }
  };
  return key(a) === key(b);
}
