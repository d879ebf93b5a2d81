/** Provider failures as tests check them. */
import { ProviderError } from '../../src/platform/models/model-provider.js';

/** The ProviderError `promise` rejects with (anything else fails the test). */
export async function providerFailure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ProviderError)) throw new Error(`expected a ProviderError, got ${String(error)}`);
  return error;
}
