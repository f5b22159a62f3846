/** Environment → validated config object. The only place process.env is read. */
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  NODE_ENV: z.string().default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  ADMIN_PASSWORD: z.string().min(8, 'ADMIN_PASSWORD must be at least 8 characters').optional(),
  SITES_ORIGIN: z.string().url().optional(),
  SITES_SUBDOMAINS: bool.default(false),
  TRUST_PROXY: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().optional(),
  REDIS_URL: z.string().optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
});

export interface Config {
  env: string;
  port: number;
  host: string;
  dataDir: string;
  /** SQLite file path, or a postgres:// URL. */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string };
  adminPassword?: string;
  sitesOrigin?: string;
  sitesSubdomains: boolean;
  trustProxy: boolean;
  logLevel: string;
  /** Folder of the built web app; absent when not built (API-only). */
  webDist: string;
  redisUrl?: string;
  /**
   * Prometheus metrics: on a port of their own (bound to loopback by default) and/or at /metrics
   * on the main port for scrapers that send `Authorization: Bearer <token>`. Off when neither is set.
   */
  metrics: { port?: number; host: string; token?: string };
  /**
   * HTTP timeouts in ms, chosen deliberately (Fastify leaves requestTimeout at 0): headers must
   * arrive within 15 s (slow-loris), an idle socket closes after 60 s, and a whole request may take
   * 10 minutes so that a 200 MB upload still fits on a slow (~350 KB/s) link.
   */
  timeouts: { request: number; headers: number; keepAlive: number; idle: number };
  /** Hashes allowed to run at once; more waiting logins are refused with 429. */
  maxConcurrentHashes: number;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  let database: Config['database'] = { kind: 'sqlite', file: path.join(dataDir, 'sitehall.db') };
  if (e.DATABASE_URL) {
    if (/^postgres(ql)?:\/\//.test(e.DATABASE_URL)) database = { kind: 'postgres', url: e.DATABASE_URL };
    else if (e.DATABASE_URL.startsWith('sqlite:'))
      database = { kind: 'sqlite', file: path.resolve(e.DATABASE_URL.slice('sqlite:'.length)) };
    else throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    adminPassword: e.ADMIN_PASSWORD,
    sitesOrigin: e.SITES_ORIGIN?.replace(/\/$/, ''),
    sitesSubdomains: e.SITES_SUBDOMAINS,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../web/dist')),
    redisUrl: e.REDIS_URL,
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN },
    timeouts: { request: 10 * 60_000, headers: 15_000, keepAlive: 72_000, idle: 60_000 },
    maxConcurrentHashes: 4,
    ...overrides,
    ...(overrides.database?.kind === 'sqlite' && !overrides.database.file ? { database } : {}),
  };
}
