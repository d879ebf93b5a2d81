/** Which pages a sign-in may go on to (`r3 login-link --next`): this site's paths only. */
import { describe, expect, it } from 'vitest';
import { isSitePath } from '../../../src/features/web/sessions/session-service.js';

describe('isSitePath', () => {
  it('accepts a path of this site, with its query', () => {
    expect(isSitePath('/review/runs/5')).toBe(true);
    expect(isSitePath('/review?lane=mine&kind=action')).toBe(true);
  });

  it('refuses another origin, a relative path, spaces and control characters', () => {
    for (const path of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example',
      'review',
      '/a b',
      '/a\u0007',
    ]) {
      expect(isSitePath(path), JSON.stringify(path)).toBe(false);
    }
  });
});
