import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import type { ServiceEvent } from '../wire/event.js';

/** One waiting event as IndexedDB keeps it, under the key `[scope, id]`. */
export interface OutboxRecord {
  /** Sorts oldest first: zero-padded enqueue time, then the writing tab, then its counter. */
  id: string;
  /** When it was accepted (ms since epoch): the 7-day limit counts from here. */
  at: number;
  /** UTF-8 bytes of its JSON, kept so caps and chunking never serialise it again. */
  size: number;
  event: ServiceEvent;
}

/**
 * Where the outbox persists. A scope (the track URL) keeps the events of two SDK configurations on one
 * origin apart, so one project's events are never sent to another's endpoint.
 */
export interface OutboxStore {
  /** One transaction for the whole burst: it commits or fails as a whole. */
  put(scope: string, records: OutboxRecord[]): Promise<void>;
  remove(scope: string, ids: string[]): Promise<void>;
  /** Everything of the scope, oldest first (IndexedDB returns records in key order). */
  load(scope: string): Promise<OutboxRecord[]>;
  clear(scope: string): Promise<void>;
}

/** Its own database, so nothing else on the page (idb-keyval's default store included) shares it. */
export const OUTBOX_DB = 'svc-outbox';
export const OUTBOX_OBJECT_STORE = 'events';

let shared: UseStore | undefined;
/** Opened on first use: a page that never tracks never opens IndexedDB. */
function idb(): UseStore {
  return (shared ??= createStore(OUTBOX_DB, OUTBOX_OBJECT_STORE));
}

/** Every key `[scope, …]`: arrays sort after strings, so `[scope, []]` bounds all ids of the scope. */
function scopeRange(scope: string): IDBKeyRange {
  return IDBKeyRange.bound([scope], [scope, []]);
}

/**
 * One read-write transaction for `write`'s requests, settled when it commits (what idb-keyval's setMany and delMany
 * do, without their default store, which would ship in the bundle for nothing).
 */
function transaction(write: (store: IDBObjectStore) => void): Promise<void> {
  return idb()('readwrite', (s) => {
    write(s);
    return promisifyRequest(s.transaction);
  });
}

// `async`, so that a browser without IndexedDB (where opening throws) gets a rejection, never an exception.
export const idbOutboxStore: OutboxStore = {
  put: async (scope, records) =>
    transaction((s) => {
      for (const { id, at, size, event } of records) s.put({ id, at, size, event }, [scope, id]);
    }),
  remove: async (scope, ids) =>
    transaction((s) => {
      for (const id of ids) s.delete([scope, id]);
    }),
  load: async (scope) => idb()('readonly', (s) => promisifyRequest(s.getAll(scopeRange(scope)) as IDBRequest<OutboxRecord[]>)),
  clear: async (scope) => idb()('readwrite', (s) => promisifyRequest(s.delete(scopeRange(scope)))),
};

/** Empties every scope (tests start from a clean browser profile). */
export function clearAllOutboxes(): Promise<void> {
  return idb()('readwrite', (s) => promisifyRequest(s.clear()));
}
