import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../../../fakes/openai-server.js';
import {
  completionOutput,
  isProviderError,
  ProviderError,
  revisionTurns,
} from '../../../src/platform/models/model-provider.js';
import { createEchoProvider } from '../../../src/platform/models/providers/echo.js';
import {
  createModelProvider,
  createModelProviderRegistry,
} from '../../../src/platform/models/providers/index.js';

describe('echo provider', () => {
  it('answers with the prompt, which a skill maps to {text}', async () => {
    const echo = createEchoProvider();
    const result = await echo.complete({ system: 'ignored', prompt: 'Hello <Ada>', json: { schema: {} } });
    expect(result).toEqual({ text: 'Hello <Ada>', model: 'echo' });
    expect(completionOutput(result)).toEqual({ text: 'Hello <Ada>' });
  });

  it('answers a conversation that goes on after the prompt with its last user turn (a reviewer’s reason)', async () => {
    const echo = createEchoProvider();
    const turns = revisionTurns([
      { draft: { text: 'first' }, reason: 'Mention the refund.' },
      { draft: { text: 'Mention the refund.' }, reason: 'Shorter.' },
    ]);
    expect(turns.map((turn) => turn.role)).toEqual(['assistant', 'user', 'assistant', 'user']);
    const result = await echo.complete({ prompt: 'Hello', turns });
    expect(result).toEqual({ text: 'Shorter.', model: 'echo' });
  });

  it('rejects with the abort reason when already cancelled', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(createEchoProvider().complete({ prompt: 'x', signal: controller.signal })).rejects.toBe(
      reason,
    );
  });
});

describe('completionOutput', () => {
  it('prefers the parsed JSON, even a falsy one', () => {
    expect(completionOutput({ text: '{"a":1}', json: { a: 1 }, model: 'm' })).toEqual({ a: 1 });
    expect(completionOutput({ text: 'null', json: null, model: 'm' })).toBeNull();
  });
});

describe('ProviderError', () => {
  it('carries a code and details and is recognised by code', () => {
    const error = new ProviderError('PROVIDER_TIMEOUT', 'slow', { status: 504 });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ProviderError');
    expect(isProviderError(error, 'PROVIDER_TIMEOUT')).toBe(true);
    expect(isProviderError(error, 'PROVIDER_ERROR')).toBe(false);
    expect(isProviderError(new Error('x'))).toBe(false);
  });
});

describe('createModelProvider', () => {
  let server: FakeOpenAI;
  beforeEach(async () => {
    server = await startFakeOpenAI({ apiKey: 'k' });
  });
  afterEach(async () => {
    await server.close();
  });

  it('defaults to echo', async () => {
    expect(createModelProvider({}).name).toBe('echo');
    expect(createModelProvider({ provider: 'echo' }).name).toBe('echo');
  });

  it('builds the openai provider from its settings', async () => {
    const provider = createModelProvider({
      provider: 'openai',
      openai: { baseUrl: server.baseUrl, apiKey: 'k', model: 'gpt-x' },
    });
    expect(provider.name).toBe('openai');
    const result = await provider.complete({ prompt: 'hi' });
    expect(result.text).toBe('echo: hi');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k');
  });

  it('fails clearly on openai without a model, an unknown provider or a bad URL', () => {
    expect(() => createModelProvider({ provider: 'openai' })).toThrow(/R3_MODEL/);
    expect(() => createModelProvider({ provider: 'nope' as 'echo' })).toThrow(
      /invalid model provider configuration/,
    );
    expect(() =>
      createModelProvider({ provider: 'openai', openai: { baseUrl: 'not a url', model: 'm' } }),
    ).toThrow(/baseUrl/);
  });

  it('registry: echo always, openai when configured, PROVIDER_ERROR otherwise', async () => {
    const withOpenAI = createModelProviderRegistry({
      openai: { baseUrl: server.baseUrl, apiKey: 'k', model: 'm' },
    });
    expect(withOpenAI.defaultName).toBe('echo');
    expect(withOpenAI.available).toEqual(['echo', 'openai']);
    expect(withOpenAI.get().name).toBe('echo');
    expect(withOpenAI.get('openai')).toBe(withOpenAI.get('openai'));

    const echoOnly = createModelProviderRegistry({});
    expect(echoOnly.available).toEqual(['echo']);
    expect(() => echoOnly.get('openai')).toThrow(/not configured/);
    const error = (() => {
      try {
        echoOnly.get('anthropic');
      } catch (e) {
        return e;
      }
    })();
    expect(isProviderError(error, 'PROVIDER_ERROR')).toBe(true);
    expect(() => createModelProviderRegistry({ provider: 'openai' })).toThrow(/R3_MODEL/);
  });
});
