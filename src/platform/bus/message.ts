import type { BusMessage } from './bus.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

/**
 * A payload that is JSON text already (the outbox relay reads payloads as text): published as is,
 * not parsed and serialized again.
 */
export class JsonPayload {
  constructor(readonly text: string) {}
}

/** JSON-encodes a payload for the wire; `undefined` becomes an empty payload. */
export function encodePayload(payload: unknown): Uint8Array {
  if (payload === undefined) return EMPTY;
  return encoder.encode(payload instanceof JsonPayload ? payload.text : JSON.stringify(payload));
}

/** Fields of a received message. */
export interface BusMessageInit {
  subject: string;
  data: Uint8Array;
  msgId?: string | undefined;
  deliveryCount?: number | undefined;
}

/** Builds the `BusMessage` handed to handlers; `json()` parses on first call only. */
export function createBusMessage(init: BusMessageInit): BusMessage {
  let parsed = false;
  let value: unknown;
  const message: BusMessage = {
    subject: init.subject,
    data: init.data,
    ...(init.msgId !== undefined ? { msgId: init.msgId } : {}),
    ...(init.deliveryCount !== undefined ? { deliveryCount: init.deliveryCount } : {}),
    json<T = unknown>(): T {
      if (!parsed) {
        value = init.data.length === 0 ? undefined : JSON.parse(decoder.decode(init.data));
        parsed = true;
      }
      return value as T;
    },
  };
  return message;
}
