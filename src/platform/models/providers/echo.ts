import type { CompletionRequest, CompletionResult, ModelProvider } from '../model-provider.js';

/**
 * The `echo` provider: answers with the last user message — the rendered prompt itself, so a skill's
 * output is `{text: <rendered prompt>}` (docs/api.md "Authored resources", via `completionOutput`), or,
 * when the conversation goes on after it (a reviewer sent the draft back), the last user turn (the
 * reviewer's reason). Deterministic and free of I/O, which makes it the default for tests and for a
 * deployment without a model. It ignores `system`, `temperature`, tools and JSON mode (it never sets
 * `json`), so a skill with an `outputSchema` is validated against `{text}`.
 */
export function createEchoProvider(): ModelProvider {
  return {
    name: 'echo',
    async complete(request: CompletionRequest): Promise<CompletionResult> {
      if (request.signal?.aborted) throw request.signal.reason;
      const lastUser = request.turns?.findLast((turn) => turn.role === 'user');
      return { text: lastUser?.content ?? request.prompt, model: request.model ?? 'echo' };
    },
  };
}
