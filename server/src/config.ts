/** Environment → validated config object. The only place process.env is read. */
import { isIP } from 'node:net';
import path from 'node:path';
import { messages } from '@sitehall/contracts';
import { z } from 'zod';
import { DEFAULT_REDIS_TIMEOUT_MS } from './cluster/redis.js';
import type { DatabaseConfig } from './db/database.js';
import type { PostgresTimeouts } from './db/postgres-pool.js';
import { ConfigError } from './domain/errors.js';
import type { MailConfig } from './services/notifications.js';
import type { StorageConfig } from './storage/index.js';

export { ConfigError };

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
  SITES_PORT: z.coerce
    .number({ message: 'SITES_PORT must be a port number (0: no sites port)' })
    .int()
    .min(0, 'SITES_PORT must be between 0 and 65535')
    .max(65535, 'SITES_PORT must be between 0 and 65535')
    .optional(),
  SITES_FAST_PATH: z.enum(['on', 'off'], { message: 'SITES_FAST_PATH must be on or off' }).default('on'),
  TRUST_PROXY: bool.default(false),
  HSTS_MAX_AGE: z.coerce
    .number({ message: 'HSTS_MAX_AGE must be a number of seconds' })
    .int('HSTS_MAX_AGE must be a whole number of seconds')
    .min(0, 'HSTS_MAX_AGE must be 0 (off) or more')
    .max(2 ** 31 - 1)
    .default(15_552_000),
  HSTS_SUBDOMAINS: bool.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json']).default('auto'),
  WEB_DIST: z.string().optional(),
  REDIS_URL: z.string().optional(),
  REDIS_PREFIX: z.string().min(1).default('sitehall:'),
  REDIS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(50, 'REDIS_TIMEOUT_MS must be between 50 and 1000')
    .max(1_000, 'REDIS_TIMEOUT_MS must be between 50 and 1000')
    .default(DEFAULT_REDIS_TIMEOUT_MS),
  STORAGE: z.enum(['local', 's3'], { message: 'STORAGE must be local or s3' }).default('local'),
  S3_ENDPOINT: z
    .string()
    .regex(
      /^https?:\/\/[^/]/,
      'S3_ENDPOINT must be an http:// or https:// URL, such as http://127.0.0.1:9000',
    )
    .optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z.string().optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  MIN_FREE_DISK_BYTES: z
    .string()
    .regex(/^\d+\s*([KMG]i?B?)?$/i, 'MIN_FREE_DISK_BYTES must be a byte count such as 536870912 or 512MiB')
    .default('512MiB'),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
  UPLOAD_IDLE_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(600).default(10),
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  RENDER_WORKER: z.enum(['on', 'off'], { message: 'RENDER_WORKER must be on or off' }).default('on'),
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1_500),
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  SMTP_URL: z
    .string()
    .regex(
      /^smtps?:\/\/[^/]/,
      'SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://user:pass@mail.example.com:587',
    )
    .optional(),
  MAIL_FROM: z.string().min(3).optional(),
  DNS_RESOLVERS: z
    .string()
    .refine((v) => v.split(',').every((one) => dnsServer(one.trim()) !== null), {
      message:
        'DNS_RESOLVERS must be a comma-separated list of IP addresses with optional ports, such as 1.1.1.1,8.8.8.8:53',
    })
    .optional(),
  PUBLIC_URL: z
    .string()
    .url('PUBLIC_URL must be the address people open the app at, such as https://sites.example.com')
    .optional(),
});

/**
 * One DNS_RESOLVERS entry as node:dns Resolver.setServers takes it ('1.1.1.1', '1.1.1.1:53',
 * '[::1]:53', '::1'), or null when it is no IP address with an optional port.
 */
function dnsServer(entry: string): string | null {
  if (isIP(entry)) return entry;
  const v6 = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(entry);
  if (v6 && isIP(v6[1]!) === 6 && Number(v6[2]) > 0 && Number(v6[2]) < 65536) return entry;
  const v4 = /^([0-9.]+):(\d{1,5})$/.exec(entry);
  if (v4 && isIP(v4[1]!) === 4 && Number(v4[2]) > 0 && Number(v4[2]) < 65536) return entry;
  return null;
}

/** '512MiB', '1G', '1048576' → bytes (K, M, G are powers of 1024, with or without "iB"). */
function byteCount(text: string): number {
  const m = /^(\d+)\s*([KMG])?/i.exec(text.trim())!;
  const unit = { K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[(m[2] ?? '').toUpperCase()] ?? 1;
  return Number(m[1]) * unit;
}

export interface Config {
  env: string;
  port: number;
  host: string;
  dataDir: string;
  /** SQLite file path, or a postgres:// URL. */
  database: DatabaseConfig;
  /**
   * PostgreSQL bounds (docs/decisions/faults.md "Database outages"): opening a connection, waiting for
   * one from the pool, and one statement. With the defaults a request meets a 503 within about
   * 1.5 s when the database stops answering.
   */
  databaseTimeouts: PostgresTimeouts;
  adminPassword?: string;
  sitesOrigin?: string;
  sitesSubdomains: boolean;
  /**
   * Without SITES_ORIGIN: a second port (same HOST) that serves sites only, on an origin of their
   * own (docs/decisions/serving.md "Serving sites"). 0: none, sites are sandboxed on the app's port.
   * Always 0 when SITES_ORIGIN is set.
   */
  sitesPort: number;
  /**
   * SITES_FAST_PATH: hot /sites files answered before Fastify (serve/fast-path.ts,
   * serve/fast-connections.ts). false: every request goes through the Fastify route.
   */
  sitesFastPath: boolean;
  /**
   * DNS_RESOLVERS: the servers custom-domain checks ask (services/custom-domains.ts), in
   * Resolver.setServers form; empty: the system's resolvers.
   */
  dnsResolvers: string[];
  trustProxy: boolean;
  /**
   * Strict-Transport-Security for requests that came over TLS (directly, or X-Forwarded-Proto with
   * TRUST_PROXY): max-age in seconds, 0 = not sent.
   */
  hsts: { maxAge: number; includeSubDomains: boolean };
  logLevel: string;
  /** Readable lines (a terminal) or one JSON object per line (a log collector). */
  logFormat: 'pretty' | 'json';
  /** Folder of the built web app; absent when not built (API-only). */
  webDist: string;
  /** With it, several instances share counters and cache invalidations (docs/decisions.md). */
  redisUrl?: string;
  /** Put before every Redis key and channel, so installs (and tests) can share one Redis. */
  redisPrefix: string;
  /**
   * How long a Redis command may take before the caller goes on without it (rate limits pass, the
   * login throttle counts locally) and the connection is dropped and dialled again.
   */
  redisTimeoutMs: number;
  /** Where site files (blobs) live: DATA_DIR/blobs, or an S3-compatible bucket. */
  storage: StorageConfig;
  /**
   * Prometheus metrics: on a port of their own (bound to loopback by default) and/or at /metrics
   * on the main port for scrapers that send `Authorization: Bearer <token>`. Off when neither is set.
   */
  metrics: { port?: number; host: string; token?: string };
  /**
   * HTTP timeouts in ms, chosen deliberately (Fastify leaves requestTimeout at 0): headers must
   * arrive within 15 s (slow-loris), an idle socket closes after 60 s, and a whole request may take
   * 10 minutes so that a 200 MB upload still fits on a slow (~350 KB/s) link; any other body (JSON,
   * at most 1 MB) must arrive within 30 s of its head (http/request-bodies.ts).
   */
  timeouts: { request: number; headers: number; keepAlive: number; idle: number; body: number };
  /** Hashes allowed to run at once; more waiting logins are refused with 429. */
  maxConcurrentHashes: number;
  /** Digest deploy file PUTs an address may make a minute (a budget of their own; 429 past it). */
  deployPutsPerMinute: number;
  /** /readyz fails when DATA_DIR's disk has less free space than this (0: not checked). */
  minFreeDiskBytes: number;
  /** How often the leftover sweep runs after the one at start-up (ms). */
  sweepIntervalMs: number;
  /** An upload body that sends nothing for this long is answered 408 (ms). */
  uploadIdleTimeoutMs: number;
  /** At shutdown, uploads still receiving after this long are answered 503 (ms). */
  shutdownGraceMs: number;
  /**
   * The render worker (docs/render.md): off, this instance queues renders but runs none; Debian's
   * Chromium, never a downloaded one; pollMs is how often it looks for jobs queued elsewhere.
   */
  /** E-mail of notices (services/notifications.ts MailConfig): off without SMTP_URL. */
  mail: MailConfig;
  render: {
    enabled: boolean;
    chromiumPath: string;
    pollMs: number;
    /** A page must load within this (ms; docs/render.md: 10 s). */
    loadTimeoutMs: number;
    /** A failed attempt is tried again after this times the attempts made (ms). */
    retryAfterMs: number;
    /** The browser's main process's memory limit (bytes; render/memory-watchdog.ts's by default; tests lower it). */
    browserMemoryLimitBytes?: number;
  };
}

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
    storage: storageConfig(e),
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database,
    databaseTimeouts: {
      connectMs: e.DB_CONNECT_TIMEOUT_MS,
      acquireMs: e.DB_ACQUIRE_TIMEOUT_MS,
      statementMs: e.DB_STATEMENT_TIMEOUT_MS,
    },
    adminPassword: e.ADMIN_PASSWORD,
    sitesOrigin: e.SITES_ORIGIN?.replace(/\/$/, ''),
    sitesSubdomains: e.SITES_SUBDOMAINS,
    sitesPort: sitesPort(e),
    sitesFastPath: e.SITES_FAST_PATH === 'on',
    dnsResolvers: e.DNS_RESOLVERS ? e.DNS_RESOLVERS.split(',').map((one) => one.trim()) : [],
    trustProxy: e.TRUST_PROXY,
    hsts: { maxAge: e.HSTS_MAX_AGE, includeSubDomains: e.HSTS_SUBDOMAINS },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : e.LOG_FORMAT,
    webDist: path.resolve(e.WEB_DIST ?? path.join(import.meta.dirname, '../../web/dist')),
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    redisTimeoutMs: e.REDIS_TIMEOUT_MS,
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST, token: e.METRICS_TOKEN },
    timeouts: { request: 10 * 60_000, headers: 15_000, keepAlive: 72_000, idle: 60_000, body: 30_000 },
    maxConcurrentHashes: 4,
    deployPutsPerMinute: 20_000,
    minFreeDiskBytes: byteCount(e.MIN_FREE_DISK_BYTES),
    sweepIntervalMs: e.SWEEP_INTERVAL_SECONDS * 1000,
    uploadIdleTimeoutMs: e.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000,
    shutdownGraceMs: e.SHUTDOWN_GRACE_SECONDS * 1000,
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM ?? '站点展厅 <sitehall@localhost>',
      publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
      pollMs: 5_000,
      retryBaseMs: 30_000,
      maxAttempts: 8,
    },
    render: {
      enabled: e.RENDER_WORKER === 'on',
      chromiumPath: e.CHROMIUM_PATH,
      pollMs: 2_000,
      loadTimeoutMs: 10_000,
      retryAfterMs: 5_000,
    },
    ...overrides,
    ...(overrides.database?.kind === 'sqlite' && !overrides.database.file ? { database } : {}),
  };
}

/** SITES_PORT, or PORT + 1; none with SITES_ORIGIN (it wins) or with a port the OS picks (PORT=0). */
function sitesPort(e: z.infer<typeof envSchema>): number {
  if (e.SITES_ORIGIN) return 0;
  const port = e.SITES_PORT ?? (e.PORT === 0 || e.PORT === 65535 ? 0 : e.PORT + 1);
  if (port !== 0 && port === e.PORT)
    throw new ConfigError(`SITES_PORT must differ from PORT (${e.PORT}): sites need an origin of their own`);
  return port;
}

function storageConfig(e: z.infer<typeof envSchema>): Config['storage'] {
  if (e.STORAGE === 'local') return { kind: 'local' };
  if (!e.S3_BUCKET)
    throw new ConfigError('STORAGE=s3 needs S3_BUCKET (the bucket that holds the site files)');
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both, or neither');
  }
  const prefix = e.S3_PREFIX?.replace(/^\/+/, '');
  return {
    kind: 's3',
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION,
    bucket: e.S3_BUCKET,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
    ...(prefix ? { prefix: prefix.endsWith('/') ? prefix : `${prefix}/` } : {}),
  };
}

/**
 * Said once at start with SITES_ORIGIN but no PUBLIC_URL: custom domains are not offered then
 * (services/custom-domains.ts), since the app's own host, which no project may take, is unknown.
 */
export function customDomainsNotice(config: Pick<Config, 'sitesOrigin' | 'mail'>): string | null {
  if (!config.sitesOrigin || config.mail.publicUrl) return null;
  return (
    // The same words the domain lists give as a verified domain's not_served_reason.
    messages.domain.notServedNoPublicUrl +
    ' / SITES_ORIGIN is set without PUBLIC_URL: custom domains are off (a project could otherwise take the app’s own host); set PUBLIC_URL.'
  );
}

/**
 * Said once at start while no SITES_ORIGIN is set. On the sites port, sites have an origin apart
 * from the app: their own under localhost (`p12.localhost`), one shared by all when reached by IP or
 * another name; without it they share the app's origin, sandboxed.
 */
export function sharedOriginNotice(config: Pick<Config, 'sitesOrigin' | 'sitesPort'>): string | null {
  if (config.sitesOrigin) return null;
  if (config.sitesPort)
    return (
      `站点在单独的端口 ${config.sitesPort} 上提供，与平台隔离；本机用 localhost 访问时每个站点有自己的来源（如 p12.localhost:${config.sitesPort}），从其他设备用 IP 或域名访问时所有站点共用同一来源（origin），彼此可读写对方的存储。` +
      '生产环境请设置 SITES_ORIGIN 与 SITES_SUBDOMAINS，让每个站点拥有自己的来源（见 docs/deploy.md）。' +
      ` / Sites are served on port ${config.sitesPort}, apart from the app; on localhost each has its own origin (p12.localhost), reached by IP or another name all share one; in production set SITES_ORIGIN and SITES_SUBDOMAINS.`
    );
  return (
    '未设置 SITES_ORIGIN：用户上传的站点与平台共用同一来源（origin），仅靠沙箱隔离。' +
    '生产环境建议为站点设置单独的域名 SITES_ORIGIN（见 docs/deploy.md）。' +
    ' / SITES_ORIGIN is not set: uploaded sites share the app’s origin (sandboxed only); set SITES_ORIGIN in production.'
  );
}
