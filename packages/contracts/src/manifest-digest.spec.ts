import { describe, expect, it } from 'vitest';
import { canonicalManifest } from './manifest-digest.js';
import { deployMessages as m } from './messages/deploys.js';
import { startDeployBody } from './schemas/deploys.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('a base-version deploy (docs/decisions/deploys.md "Base-version deploys")', () => {
  it('has one canonical manifest text: sorted lines of path, NUL, hash; paths in NFC', () => {
    const text = canonicalManifest([
      ['b.html', B],
      ['a/x.css', A],
      ['a', A],
    ]);
    expect(text).toBe(`a\0${A}\na/x.css\0${A}\nb.html\0${B}\n`);
    // The order given and a path's Unicode form do not change it.
    expect(canonicalManifest([['e\u0301.html', A]])).toBe(canonicalManifest([['\u00e9.html', A]]));
    expect(canonicalManifest([])).toBe('');
  });

  it('takes files, or base_version with base_digest and changes for a project: never both', () => {
    const base = { base_version: 2, base_digest: A, changes: { 'a.html': B, 'old.html': null } };
    expect(startDeployBody.safeParse({ project_id: 1, ...base }).success).toBe(true);
    expect(startDeployBody.safeParse({ project_id: 1, files: { 'a.html': A } }).success).toBe(true);
    const problem = (body: object) => startDeployBody.safeParse(body).error?.issues[0]?.message;
    expect(problem({ project_id: 1, files: { 'a.html': A }, ...base })).toBe(m.manifestOrBase);
    expect(problem({ project_id: 1 })).toBe(m.manifestOrBase);
    expect(problem({ project_id: 1, base_version: 2, changes: {} })).toBe(m.manifestOrBase);
    expect(problem({ project_name: '新项目', ...base })).toBe(m.baseNeedsProject);
    expect(problem({ project_id: 1, ...base, base_version: 0 })).toBe(m.baseVersionInvalid);
    expect(problem({ project_id: 1, ...base, base_digest: 'x' })).toBe(m.baseDigestInvalid);
    expect(problem({ project_id: 1, ...base, changes: { 'a.html': 'x' } })).toBe(m.changesInvalid);
  });
});
