/** The configuration is frozen once start-up is over (src/platform/config.ts `freezeConfig`). */
import { describe, expect, it } from 'vitest';
import { freezeConfig, loadConfig } from '../../src/platform/config.js';
import { startTestApp } from '../helpers/app.js';

describe('the configuration after start-up', () => {
  it('is frozen all the way down: no module can change what another reads', () => {
    const config = freezeConfig(loadConfig({ PORT: '0' }));
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config.webhooks.backoffMs as number[]).push(1);
    }).toThrow(TypeError);
    expect(Object.isFrozen(config.tracing.headers)).toBe(true);
  });

  it('is frozen in a serving process, with the port PORT=0 picked already in baseUrl', async () => {
    const t = await startTestApp();
    try {
      expect(Object.isFrozen(t.app.config)).toBe(true);
      expect(Object.isFrozen(t.app.config.webhooks)).toBe(true);
      expect(t.app.config.baseUrl).toBe(t.url);
    } finally {
      await t.close();
    }
  });
});
