import { describe, expect, it } from 'vitest';
import { reviewMessages } from './messages/review.js';
import { format } from './messages.js';
import { adminConfigBody } from './schemas/admin.js';
import { publicConfigDto } from './schemas/responses.js';
import {
  publicSettingKeys,
  publicSettingsOf,
  SETTING_GROUPS,
  SETTING_KEYS,
  settingDefaults,
  settingNameWithUnit,
  settingOf,
} from './settings.js';

describe('the settings table', () => {
  it.each(SETTING_KEYS)('%s has names, a group and a default its own schema accepts', (key) => {
    const d = settingOf(key);
    expect(d.name.trim()).not.toBe('');
    expect(d.label.trim()).not.toBe('');
    expect(Object.keys(SETTING_GROUPS)).toContain(d.group);
    if (d.type === 'integer') {
      expect(Number.isInteger(d.default)).toBe(true);
      expect(d.min).toBeLessThanOrEqual(d.default);
      expect(d.default).toBeLessThanOrEqual(d.max);
    }
    if (d.type === 'enum') {
      expect(d.options).toContain(d.default);
      for (const option of d.options) expect(d.optionLabels[option]).toBeTruthy();
    }
    expect(adminConfigBody.safeParse({ [key]: d.default }).success).toBe(true);
  });

  it('names a setting out of its bounds, with its stored unit', () => {
    for (const key of SETTING_KEYS) {
      const d = settingOf(key);
      if (d.type !== 'integer') continue;
      const message = format(reviewMessages.configRange, {
        field: settingNameWithUnit(key),
        min: d.min,
        max: d.max,
      });
      for (const wrong of [d.min - 1, d.max + 1]) {
        const result = adminConfigBody.safeParse({ [key]: wrong });
        expect(result.error?.issues[0]?.message, key).toBe(message);
      }
    }
    expect(settingNameWithUnit('max_file_bytes')).toBe('单个文件大小（字节）');
    expect(settingNameWithUnit('preview_ttl_seconds')).toBe('预览链接有效期（秒）');
    expect(settingNameWithUnit('max_files_per_upload')).toBe('单次上传文件数');
  });

  it('accepts all the defaults at once and refuses an unknown setting', () => {
    expect(adminConfigBody.parse(settingDefaults())).toEqual(settingDefaults());
    expect(adminConfigBody.safeParse({ colour: 'red' }).success).toBe(false);
  });

  // Iterates the table: a setting marked public is placed without a hand edit anywhere else.
  it('places every public setting, and only those, where its descriptor says', () => {
    const values = settingDefaults();
    const pub = publicSettingsOf(values) as unknown as Record<string, unknown> & {
      limits: Record<string, unknown>;
    };
    for (const key of SETTING_KEYS) {
      const place = settingOf(key).public;
      expect(pub.limits[key], key).toEqual(place === 'limits' ? values[key] : undefined);
      expect(pub[key], key).toEqual(place === 'top' ? values[key] : undefined);
    }
    expect(Object.keys(pub)).toEqual(['limits', ...publicSettingKeys('top')]);
    expect(Object.keys(pub.limits)).toEqual(publicSettingKeys('limits'));
    // The answer's schema names the same fields (OpenAPI), none more.
    const config = {
      ...pub,
      sites_origin: null,
      sites_port: null,
      sites_subdomains: false,
      mail_enabled: false,
    };
    expect(publicConfigDto.strict().safeParse(config).success).toBe(true);
  });
});
