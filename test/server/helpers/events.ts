import { randomUUID } from 'node:crypto';
import type { ServiceEvent } from '../../../wire/event.js';

let clock = Date.parse('2025-01-01T00:00:00.000Z');

/** A valid event; `overrides` replace fields (timestamps advance 1 s per event unless given). */
export function makeEvent(overrides: Partial<ServiceEvent> = {}): ServiceEvent {
  clock += 1000;
  return {
    eventId: randomUUID(),
    type: 'track',
    name: 'Clicked banner',
    profileId: 'prof-1',
    sessionId: 'sess-1',
    pageId: 'page-1',
    timestamp: new Date(clock).toISOString(),
    data: { a: 1 },
    ...overrides,
  };
}

/** A version 7 UUID minted at `ms` (its n-th), as the SDK and the snippet make profile ids: results read its time. */
export function v7(ms: number, n: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7000-8000-${n.toString(16).padStart(12, '0')}`;
}
