/**
 * The settings service's rules over a double of the settings table
 * (server/test/support/service-harness.ts); the stored row over both engines is
 * server/test/admin.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { anAdmin, auditDouble, newTestService } from '../../test/support/service-harness.js';
import { Invalid } from '../domain/errors.js';
import { createSettingsService, DEFAULT_SETTINGS } from './settings.js';

const meta = { ip: '203.0.113.9', userAgent: 'spec' };

function settings(stored?: object) {
  const audit = auditDouble();
  const onChange = vi.fn();
  const h = newTestService(({ db, repos }) =>
    createSettingsService(db, {
      siteIsolation: { mode: 'sandboxed', sites_port: null },
      audit,
      table: repos.settings,
      onChange,
    }),
  );
  h.repos.settings.get.mockResolvedValue(stored ? JSON.stringify(stored) : undefined);
  h.repos.settings.put.mockResolvedValue(undefined);
  return { ...h, audit, onChange };
}

describe('settings service', () => {
  it('reads the defaults when nothing is stored, and a stored value over them', async () => {
    expect(await settings().sut.get()).toEqual(DEFAULT_SETTINGS);
    const s = await settings({ uploadsPerHour: 3, limits: { maxFilesPerUpload: 12 } }).sut.get();
    expect(s.uploadsPerHour).toBe(3);
    expect(s.limits.maxFilesPerUpload).toBe(12);
    expect(s.limits.maxFileBytes).toBe(DEFAULT_SETTINGS.limits.maxFileBytes);
  });

  it('keeps what it read until it is told to forget', async () => {
    const { sut, repos } = settings({ uploadsPerHour: 3 });
    await sut.get();
    await sut.get();
    expect(repos.settings.get).toHaveBeenCalledTimes(1);
    repos.settings.get.mockResolvedValue(JSON.stringify({ uploadsPerHour: 4 }));
    sut.invalidate();
    expect((await sut.get()).uploadsPerHour).toBe(4);
  });

  it('saves and audits only the fields that changed, with both values, in one transaction', async () => {
    const { sut, repos, trx, audit, onChange } = settings();
    const before = DEFAULT_SETTINGS.uploadsPerHour;
    await sut.change(anAdmin, { max_uploads_per_hour: before + 1 }, meta);
    expect(repos.settings.put).toHaveBeenCalledWith(trx, 'platform', expect.any(String), expect.any(String));
    expect(audit.record).toHaveBeenCalledWith(
      expect.objectContaining({
        action: 'config.update',
        detail: { max_uploads_per_hour: { from: before, to: before + 1 } },
      }),
      trx,
    );
    expect(onChange).toHaveBeenCalledTimes(1);
    // The same value again: nothing to save or audit.
    await sut.change(anAdmin, { max_uploads_per_hour: before + 1 }, meta);
    expect(repos.settings.put).toHaveBeenCalledTimes(1);
    expect(audit.record).toHaveBeenCalledTimes(1);
  });

  it('refuses a file limit above the upload limit, saving nothing', async () => {
    const { sut, repos } = settings();
    const upload = DEFAULT_SETTINGS.limits.maxUploadBytes;
    await expect(sut.change(anAdmin, { max_file_bytes: upload + 1 }, meta)).rejects.toBeInstanceOf(Invalid);
    expect(repos.settings.put).not.toHaveBeenCalled();
  });
});
