import { RUN_EVENT_NAMES } from '../../machines/shared/effects.js';

/**
 * Follows run `id`'s event stream, calling `onEvent` on every event. The server ends the stream after
 * the run's terminal event; it is then closed rather than reconnected forever. Close it to stop.
 */
export function openRunStream(id: string | number, onEvent: () => void): EventSource {
  const source = new EventSource(`/api/v1/runs/${encodeURIComponent(String(id))}/stream`);
  source.onmessage = onEvent;
  for (const name of RUN_EVENT_NAMES) source.addEventListener(name, onEvent);
  source.onerror = () => {
    if (source.readyState === EventSource.CONNECTING) source.close();
  };
  return source;
}
