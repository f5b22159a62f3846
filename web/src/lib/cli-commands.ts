/**
 * The commands the token card shows for this server (docs/notifications.md "The CLI from the server"):
 * install the CLI from the server itself, sign in with a token, deploy a folder. Quoted for a
 * POSIX shell where a value could need it.
 */
import { CLI_DOWNLOAD_PATH } from '@sitehall/contracts';

/** A word for sh: as it is when it is plain, else in single quotes. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

export interface CliCommands {
  install: string;
  login: string;
  deploy: string;
}

/** `origin`: the address the app was opened at; `token`: the new token, or a placeholder. */
export function cliCommands(origin: string, token?: string): CliCommands {
  const base = origin.replace(/\/+$/, '');
  return {
    install: `npm install -g ${shellWord(`${base}${CLI_DOWNLOAD_PATH}`)}`,
    login: `sitehall login --url ${shellWord(base)} --token ${token ? shellWord(token) : '<令牌>'}`,
    deploy: 'sitehall deploy ./dist --name 我的站点',
  };
}
