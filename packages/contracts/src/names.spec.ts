import { describe, expect, it } from 'vitest';
import { projectNameProblem, siteNameProblem } from './names.js';
import { projectName } from './schemas/projects.js';
import { siteName } from './schemas/site-names.js';

const problemOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.success ? null : (result.error?.issues[0]?.message ?? null);

describe('the name rules without zod (the CLI checks its arguments with them)', () => {
  it('refuse a project name as the projectName schema does', () => {
    for (const name of [
      '',
      '  ',
      'a',
      ' a ',
      'ab',
      '我的网站',
      'x'.repeat(50),
      'x'.repeat(51),
      'ad\u200bmin',
    ]) {
      expect(projectNameProblem(name), JSON.stringify(name)).toBe(problemOf(projectName.safeParse(name)));
    }
  });

  it('refuse a site name as the siteName schema does', () => {
    for (const name of ['ab', 'my-site', 'My-Site', 'a--b', 'www', 'p17', '1abc', 'x'.repeat(41)]) {
      const asked = name.trim().toLowerCase();
      expect(siteNameProblem(asked), name).toBe(problemOf(siteName.safeParse(name)));
    }
  });
});
