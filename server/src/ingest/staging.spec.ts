/** Staging names: what newStagingName makes, parseStagingName reads back, in both forms. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { newStagingName, parseStagingName, writeCounted } from './staging.js';

const INSTANCE = 'i_build-host_4242_0badc0de';

describe('staging names', () => {
  it('reads back the instance and the time of a name made after an instance', () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
    const name = newStagingName(INSTANCE, at);
    expect(name.startsWith(`${INSTANCE}.`)).toBe(true);
    expect(parseStagingName(name)).toEqual({ owner: INSTANCE, madeAt: at });
  });

  it('reads back the time of a name made without an instance', () => {
    const at = Date.UTC(2025, 5, 6);
    const name = newStagingName(undefined, at);
    expect(name).not.toContain('.');
    expect(parseStagingName(name)).toEqual({ owner: null, madeAt: at });
  });

  it('gives no time for a name that does not say one', () => {
    expect(parseStagingName('notes.txt')).toEqual({ owner: 'notes', madeAt: 0 });
    expect(parseStagingName('')).toEqual({ owner: null, madeAt: 0 });
    expect(parseStagingName(`${INSTANCE}.%%-x`)).toEqual({ owner: INSTANCE, madeAt: 0 });
  });

  it('makes a different name each time', () => {
    const names = new Set(Array.from({ length: 50 }, () => newStagingName(INSTANCE, 1)));
    expect(names.size).toBe(50);
  });
});

describe('writeCounted', () => {
  const file = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'staging-spec-')), 'f');

  it('writes the bytes and takes their facts, asking admit before each chunk', async () => {
    const target = file();
    const seen: [number, number][] = [];
    const facts = await writeCounted(Readable.from([Buffer.from('héllo '), Buffer.from('world')]), target, {
      utf8: true,
      admit: async (size, chunk) => {
        seen.push([size, chunk]);
      },
    });
    expect(fs.readFileSync(target, 'utf8')).toBe('héllo world');
    expect(facts.size).toBe(12);
    expect(facts.utf8).toBe(true);
    expect(facts.sha256).toBe(createHash('sha256').update('héllo world').digest('hex'));
    expect(seen).toEqual([
      [7, 7],
      [12, 5],
    ]);
  });

  it('stops at the chunk admit refuses, with admit’s error', async () => {
    const refused = new Error('too large');
    await expect(
      writeCounted(Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), file(), {
        utf8: false,
        admit: (size) => {
          if (size > 15) throw refused;
        },
      }),
    ).rejects.toBe(refused);
  });
});
