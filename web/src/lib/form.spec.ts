import { createTokenBody, messages, projectName, username } from '@sitehall/contracts';
import { describe, expect, it } from 'vitest';
import { schemaRule } from './form';

/** What the form shows under a field for `value`: the rule's message, or null when it passes. */
async function shown(rule: ReturnType<typeof schemaRule>, value: string): Promise<string | null> {
  const validator = (rule as { validator: (r: unknown, v: unknown) => Promise<void> }).validator;
  try {
    await validator({}, value);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('names another person sees, checked in the form with the server’s rule', () => {
  it.each([
    ['project', schemaRule(projectName), '我的站点', '我的站点\u200b', messages.project.nameInvalid],
    ['project', schemaRule(projectName), '站点 A', 'abc\u202egpj.exe', messages.project.nameInvalid],
    [
      'token',
      schemaRule(createTokenBody.shape.name),
      'CI 部署',
      'CI\u200d部署',
      messages.deploy.tokenNameInvalid,
    ],
    [
      'token',
      schemaRule(createTokenBody.shape.name),
      'build',
      '\u2067build',
      messages.deploy.tokenNameInvalid,
    ],
    ['user', schemaRule(username), 'alice', 'alice\u3164', messages.auth.usernameInvisible],
  ])(
    'refuses a look-alike %s name in Chinese and takes the plain one',
    async (_, rule, plain, lookAlike, message) => {
      expect(await shown(rule, plain)).toBeNull();
      expect(await shown(rule, lookAlike)).toBe(message);
      expect(message).toMatch(/[\u4e00-\u9fff]/);
    },
  );
});
