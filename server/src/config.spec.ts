/**
 * Settings read from the environment: storage (STORAGE, S3_*), the failure settings (disk, sweep,
 * idle uploads, shutdown), the database timeouts (DB_*) and the shared-origin notice.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, customDomainsNotice, loadConfig, sharedOriginNotice } from './config.js';

const S3 = { STORAGE: 's3', S3_BUCKET: 'sites', S3_ACCESS_KEY_ID: 'key', S3_SECRET_ACCESS_KEY: 'secret' };

describe('storage configuration', () => {
  it('is the local data folder unless STORAGE=s3', () => {
    expect(loadConfig({}).storage).toEqual({ kind: 'local' });
    expect(loadConfig({ STORAGE: 'local', S3_BUCKET: 'ignored' }).storage).toEqual({ kind: 'local' });
  });

  it('reads the S3 settings, with region us-east-1 and virtual-host style by default', () => {
    expect(loadConfig(S3).storage).toEqual({
      kind: 's3',
      endpoint: undefined,
      region: 'us-east-1',
      bucket: 'sites',
      accessKeyId: 'key',
      secretAccessKey: 'secret',
      forcePathStyle: false,
    });
    const full = loadConfig({
      ...S3,
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-west-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: '/sitehall',
    }).storage;
    expect(full).toMatchObject({
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      prefix: 'sitehall/',
    });
  });

  it('leaves credentials to the AWS default chain (instance roles) when none are given', () => {
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'b' }).storage).toMatchObject({
      accessKeyId: undefined,
      secretAccessKey: undefined,
    });
  });

  it.each([
    [{ STORAGE: 's3' }, 'STORAGE=s3 needs S3_BUCKET'],
    [{ ...S3, S3_SECRET_ACCESS_KEY: '' }, 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together'],
    [{ STORAGE: 'minio' }, 'STORAGE must be local or s3'],
    [{ ...S3, S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT must be an http:// or https:// URL'],
    [{ ...S3, S3_FORCE_PATH_STYLE: 'sometimes' }, 'S3_FORCE_PATH_STYLE'],
  ])('refuses %j in plain words', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('failure settings', () => {
  it('has defaults that a machine with a few GB free passes', () => {
    const c = loadConfig({});
    expect(c.minFreeDiskBytes).toBe(512 * 1024 * 1024);
    expect(c.sweepIntervalMs).toBe(300_000);
    expect(c.uploadIdleTimeoutMs).toBe(60_000);
    expect(c.shutdownGraceMs).toBe(10_000);
  });

  it('reads MIN_FREE_DISK_BYTES as bytes or with K/M/G (powers of 1024), 0 for off', () => {
    const min = (v: string) => loadConfig({ MIN_FREE_DISK_BYTES: v }).minFreeDiskBytes;
    expect(min('1048576')).toBe(1024 * 1024);
    expect(min('2G')).toBe(2 * 1024 ** 3);
    expect(min('256MiB')).toBe(256 * 1024 ** 2);
    expect(min('64kb')).toBe(64 * 1024);
    expect(min('0')).toBe(0);
    expect(() => min('lots')).toThrow(ConfigError);
    expect(() => min('-5')).toThrow(/MIN_FREE_DISK_BYTES/);
  });

  it('reads the sweep interval, the upload idle limit and the shutdown grace in seconds', () => {
    const c = loadConfig({
      SWEEP_INTERVAL_SECONDS: '60',
      UPLOAD_IDLE_TIMEOUT_SECONDS: '5',
      SHUTDOWN_GRACE_SECONDS: '0',
    });
    expect([c.sweepIntervalMs, c.uploadIdleTimeoutMs, c.shutdownGraceMs]).toEqual([60_000, 5_000, 0]);
    expect(() => loadConfig({ SWEEP_INTERVAL_SECONDS: '1' })).toThrow(/SWEEP_INTERVAL_SECONDS/);
  });
});

describe('database timeouts', () => {
  it('bound connecting, waiting for a connection and a statement, by default and as set', () => {
    expect(loadConfig({}).databaseTimeouts).toEqual({
      connectMs: 1_000,
      acquireMs: 1_500,
      statementMs: 30_000,
    });
    expect(
      loadConfig({
        DB_CONNECT_TIMEOUT_MS: '800',
        DB_ACQUIRE_TIMEOUT_MS: '1200',
        DB_STATEMENT_TIMEOUT_MS: '60000',
      }).databaseTimeouts,
    ).toEqual({ connectMs: 800, acquireMs: 1_200, statementMs: 60_000 });
  });

  it.each([
    { DB_CONNECT_TIMEOUT_MS: '0' },
    { DB_ACQUIRE_TIMEOUT_MS: 'soon' },
    { DB_STATEMENT_TIMEOUT_MS: '10' },
  ])('refuses %j, naming it', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(Object.keys(env)[0]!);
  });
});

describe('sites port', () => {
  it('is PORT + 1 by default, SITES_PORT when given, none with SITES_PORT=0 or SITES_ORIGIN', () => {
    expect(loadConfig({}).sitesPort).toBe(3001);
    expect(loadConfig({ PORT: '8080' }).sitesPort).toBe(8081);
    expect(loadConfig({ PORT: '8080', SITES_PORT: '9000' }).sitesPort).toBe(9000);
    expect(loadConfig({ SITES_PORT: '0' }).sitesPort).toBe(0);
    expect(loadConfig({ SITES_ORIGIN: 'https://sites.example.com', SITES_PORT: '9000' }).sitesPort).toBe(0);
    // A port the OS picks has no "next" one.
    expect(loadConfig({ PORT: '0' }).sitesPort).toBe(0);
  });

  it('refuses a sites port equal to PORT, or not a port', () => {
    expect(() => loadConfig({ PORT: '8080', SITES_PORT: '8080' })).toThrow(
      /SITES_PORT must differ from PORT/,
    );
    expect(() => loadConfig({ SITES_PORT: '70000' })).toThrow(/SITES_PORT/);
    expect(() => loadConfig({ SITES_PORT: 'next' })).toThrow(/SITES_PORT/);
  });
});

describe('sharedOriginNotice', () => {
  it('on the sites port, says sites share one origin with each other, and recommends SITES_ORIGIN', () => {
    const notice = sharedOriginNotice(loadConfig({}));
    expect(notice).toContain('端口 3001');
    expect(notice).toContain('SITES_SUBDOMAINS');
  });

  it('says once at start that sites share the app’s origin without SITES_ORIGIN, and recommends it', () => {
    const notice = sharedOriginNotice(loadConfig({ SITES_PORT: '0' }));
    expect(notice).toContain('未设置 SITES_ORIGIN');
    expect(notice).toContain('生产环境建议');
    expect(sharedOriginNotice(loadConfig({ SITES_ORIGIN: 'https://sites.example.com' }))).toBeNull();
  });
});

describe('customDomainsNotice', () => {
  it('says at start that custom domains are off with SITES_ORIGIN but no PUBLIC_URL', () => {
    expect(customDomainsNotice(loadConfig({ SITES_ORIGIN: 'https://sites.example.com' }))).toContain(
      '未设置 PUBLIC_URL',
    );
    const both = { SITES_ORIGIN: 'https://sites.example.com', PUBLIC_URL: 'https://hall.example.com' };
    expect(customDomainsNotice(loadConfig(both))).toBeNull();
    expect(customDomainsNotice(loadConfig({}))).toBeNull();
  });
});
