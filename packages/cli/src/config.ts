/**
 * Where the server and token come from: SITEHALL_URL and SITEHALL_TOKEN (CI), else the file
 * `sitehall login` writes: $XDG_CONFIG_HOME/sitehall/config.json (~/.config/...), mode 0600.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeFolders } from './fs-errors.js';
import { sameServer } from './link.js';

export interface Credentials {
  url: string;
  token: string;
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'sitehall', 'config.json');
}

export function readCredentials(env: NodeJS.ProcessEnv = process.env): Partial<Credentials> {
  let saved: Partial<Credentials> = {};
  try {
    saved = JSON.parse(fs.readFileSync(configFile(env), 'utf8')) as Partial<Credentials>;
  } catch {
    // No file yet (or unreadable): the environment may still say.
  }
  // Spaces and line ends around either are a copy's (a CI secret saved with its newline), never
  // theirs: a token with a newline was refused by Node as a bad header and said as the connection's.
  const url = env.SITEHALL_URL?.trim() || saved.url;
  return {
    url,
    // The saved token goes only to the server it was saved for: SITEHALL_URL naming another one (a
    // typo, a stale CI variable) would have sent it there (docs/decisions/deploys.md "API tokens
    // and digest deploys").
    token: env.SITEHALL_TOKEN?.trim() || (sameServer(url, saved.url) ? saved.token : undefined),
  };
}

export function writeCredentials(creds: Credentials, env: NodeJS.ProcessEnv = process.env): string {
  const file = configFile(env);
  makeFolders(path.dirname(file), 0o700);
  // Written to a new file, then renamed: the token is never readable by others, even briefly.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(creds, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
  return file;
}
