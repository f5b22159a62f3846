import { describe, expect, it } from 'vitest';
import { describeAuditDetail } from './auditDetail';

describe('audit detail of the storage settings', () => {
  it('reads quotas in bytes as sizes, no quota of its own as the platform default, 0 uploads as no limit', () => {
    expect(describeAuditDetail({ storage_quota_bytes: { from: null, to: 5 * 1024 ** 3 } })).toBe(
      '存储配额：平台默认 → 5 GB',
    );
    expect(
      describeAuditDetail({
        max_user_storage_bytes: { from: 1024 ** 3, to: 2 * 1024 ** 3 },
        max_uploads_per_hour: { from: 30, to: 0 },
      }),
    ).toBe('每个用户的存储空间：1 GB → 2 GB；每个用户每小时上传次数：30 → 不限');
  });
});

describe('audit detail of the file type settings', () => {
  it('names what happens to files of other types in words', () => {
    expect(describeAuditDetail({ unknown_file_types: { from: 'download', to: 'refuse' } })).toBe(
      '其他类型的文件：保存，仅供下载（不作为网页内容） → 拒绝整个上传',
    );
  });
});
