/** Settings: storage (STORAGE, S3_*) defaults and plain-words refusals, and the shared-origin notice. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, sharedOriginNotice } from './config.js';

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

describe('sharedOriginNotice', () => {
  it('says once at start that sites share the app’s origin without SITES_ORIGIN, and recommends it', () => {
    const notice = sharedOriginNotice(loadConfig({}));
    expect(notice).toContain('未设置 SITES_ORIGIN');
    expect(notice).toContain('生产环境建议');
    expect(sharedOriginNotice(loadConfig({ SITES_ORIGIN: 'https://sites.example.com' }))).toBeNull();
  });
});
