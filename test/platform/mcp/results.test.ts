import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { JsonText, renderAnswer, toolResult } from '../../../src/platform/mcp/results.js';

/** A JSON-RPC answer the way the protocol server builds it around a tool's result. */
const answer = (result: unknown, id: string | number = 7): JSONRPCMessage =>
  ({ result, jsonrpc: '2.0', id }) as JSONRPCMessage;

describe('renderAnswer', () => {
  const awkward = {
    id: 3,
    text: 'quotes " and \\ backslashes, </script>, control \u0001 chars, emoji 🙂, é',
    nested: { list: [1, null, { deep: true }], empty: {} },
    nothing: null,
  };

  it('writes a JsonText result as JSON.stringify would, without parsing the text', () => {
    for (const id of [7, 'request-"a"']) {
      const message = answer(toolResult(new JsonText(JSON.stringify(awkward))), id);
      const rendered = renderAnswer(message);
      expect(rendered).toBe(JSON.stringify(message));
      expect(JSON.parse(rendered)).toEqual({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: JSON.stringify(awkward) }], structuredContent: awkward },
      });
    }
  });

  it('writes every other answer with JSON.stringify', () => {
    const plain = answer(toolResult({ ok: true }));
    expect(renderAnswer(plain)).toBe(JSON.stringify(plain));
    const error = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Method not found' },
    } as JSONRPCMessage;
    expect(renderAnswer(error)).toBe(JSON.stringify(error));
    // A result that carries more than the two fields toolResult gives is not spliced.
    const extended = answer({ ...toolResult(new JsonText('{"a":1}')), isError: false });
    expect(renderAnswer(extended)).toBe(JSON.stringify(extended));
    // So is an answer with fields beyond {result, jsonrpc, id}.
    const annotated = {
      ...answer(toolResult(new JsonText('{"a":1}'))),
      extra: true,
    } as unknown as JSONRPCMessage;
    expect(renderAnswer(annotated)).toBe(JSON.stringify(annotated));
  });
});
