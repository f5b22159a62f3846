/**
 * Migration 040 (docs/decisions/accounts.md "A name typed in full width"): stored username keys
 * become their NFKC form, so an account named in full width signs in with the name typed either
 * way; where two accounts' names fold to one, the one keyed so already keeps it, the other keeps
 * its old key and is found by its name exactly as written. On both engines.
 */
import { describe, expect, it } from 'vitest';
import { createUsersRepository } from '../src/repositories/users.js';
import { acrossMigration, insertOldUser } from './helpers.js';

describe('username width fold migration', () => {
  it('folds the keys it can, and keeps each account found by its own name', async () => {
    const ids = new Map<string, number>();
    await acrossMigration(
      '039_content_prefix_index',
      async (db) => {
        // The keys as the old code wrote them: NFC, lower-cased.
        for (const [name, key] of [
          ['Ｗｉｄｅ', 'ｗｉｄｅ'],
          ['twin', 'twin'],
          ['ＴＷＩＮ', 'ｔｗｉｎ'],
          ['plain', 'plain'],
        ] as const) {
          ids.set(name, await insertOldUser(db, name));
          await db.updateTable('users').set({ username_key: key }).where('id', '=', ids.get(name)!).execute();
        }
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('users')
          .select(['id', 'username_key'])
          .orderBy('id')
          .execute();
        expect(rows.map((r) => r.username_key)).toEqual(['wide', 'twin', 'ｔｗｉｎ', 'plain']);
        const users = createUsersRepository(handle.dialect);
        const idOf = async (login: string) => (await users.byLogin(handle.db, login))?.id;
        expect(await idOf('wide')).toBe(ids.get('Ｗｉｄｅ'));
        expect(await idOf('ＷＩＤＥ')).toBe(ids.get('Ｗｉｄｅ'));
        expect(await idOf('Twin')).toBe(ids.get('twin'));
        // The account that kept its old key is found by its own name, the other by the folded one.
        expect(await idOf('ＴＷＩＮ')).toBe(ids.get('ＴＷＩＮ'));
        expect(await idOf('ｔｗｉｎ')).toBe(ids.get('ＴＷＩＮ'));
        expect(await idOf('plain')).toBe(ids.get('plain'));
        expect(await idOf('nobody')).toBeUndefined();
      },
    );
  });
});
