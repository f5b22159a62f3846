import { describe, expect, it } from 'vitest';
import { cliCommands, shellWord } from './cli-commands';

describe('the token card’s commands', () => {
  it('installs from this server and signs in to it with the new token', () => {
    expect(cliCommands('https://hall.example.com/', 'sht_abc123')).toEqual({
      install: 'npm install -g https://hall.example.com/cli/sitehall-cli.tgz',
      login: 'sitehall login --url https://hall.example.com --token sht_abc123',
      deploy: 'sitehall deploy ./dist --name 我的站点',
    });
  });

  it('shows a placeholder before a token exists, and quotes what a shell would split', () => {
    expect(cliCommands('http://10.0.0.5:3000').login).toBe(
      'sitehall login --url http://10.0.0.5:3000 --token <令牌>',
    );
    expect(shellWord("it's here")).toBe(`'it'\\''s here'`);
    expect(shellWord('plain-word_1')).toBe('plain-word_1');
  });
});
