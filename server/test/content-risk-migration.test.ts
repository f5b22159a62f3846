/**
 * Migration 006 ranks the content checks stored before it (deployments.content_risk) with its own
 * frozen copy of the rank (docs/architecture.md "Import rules, checked"): a version 2 report by its
 * level, a version 1 report by its risk findings (usability ones don't count), an unreadable one
 * left unranked. On both engines.
 */
import { describe, expect, it } from 'vitest';
import { acrossMigration, insertOldUser } from './helpers.js';

const finding = (severity: string, kind: string, category?: string) => ({
  severity,
  kind,
  ...(category ? { category } : {}),
  message: '',
  file: null,
  line: null,
});

const REPORTS: Record<number, string | null> = {
  1: JSON.stringify({ version: 2, level: 'medium', findings: [] }),
  2: JSON.stringify({
    version: 1,
    findings: [
      finding('high', 'missing_file'),
      finding('low', 'external_script'),
      finding('info', 'x', 'risk'),
    ],
  }),
  3: JSON.stringify({ version: 1, findings: [finding('high', 'large_file')] }),
  4: '{ not json',
  5: null,
};

describe('content risk migration', () => {
  it('ranks the reports stored before it, as the check ranked them then', async () => {
    await acrossMigration(
      '005_storage_quota',
      async (db) => {
        const at = new Date().toISOString();
        const ownerId = await insertOldUser(db);
        const project = await db
          .insertInto('projects')
          .values({
            owner_id: ownerId,
            name: '旧项目',
            description: null,
            status: 'pending',
            is_public: 1,
            view_count: 0,
            download_count: 0,
            created_at: at,
            updated_at: at,
            search_text: '旧项目',
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        for (const [version, report] of Object.entries(REPORTS)) {
          await db
            .insertInto('deployments')
            .values({
              project_id: project.id,
              version: Number(version),
              status: 'pending',
              upload_type: 'zip',
              file_count: 0,
              total_size: 0,
              entry_file: null,
              content_check: report,
              created_by: ownerId,
              created_at: at,
            })
            .execute();
        }
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('deployments')
          .select(['version', 'content_risk'])
          .orderBy('version')
          .execute();
        expect(rows.map((r) => [r.version, r.content_risk])).toEqual([
          [1, 3], // medium
          [2, 2], // low: the high finding is a usability one
          [3, 0], // clean: only usability findings
          [4, null],
          [5, null],
        ]);
      },
    );
  });
});
