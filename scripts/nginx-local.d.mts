import type { ChildProcess } from 'node:child_process';

export const SITEHALL_CONF: string;
export const NGINX: string | null;
export function renderSitehallConf(opts: {
  httpPort: number;
  httpsPort: number;
  upstreamPorts: number[];
  cert: string;
  key: string;
  dir: string;
}): string;
export function makeCertificate(dir: string): { cert: string; key: string };
export function startNginx(opts: {
  dir: string;
  conf: string;
  httpPort: number;
  workers?: number;
  cpu?: string;
}): Promise<{ process: ChildProcess; stop(): Promise<void> }>;
export function freePort(): Promise<number>;
