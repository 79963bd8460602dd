// In dist/service.js, src/requests.ts: the Choose and feed requests' code is not in the core. The element chunks that
// ask (`experiences` for Choose, `recommendations` for feeds) carry it, and the loader hands it over before their
// elements are defined (`provided`); a page that calls `svc.choose()` or `svc.recommendation()` without such an
// element fetches it on first use, after the first paint, in the `requests` chunk. When that fails the call answers as
// a failed request does.
import type * as Requests from '../src/requests.js';

type Code = typeof Requests;

/** The requests' code that chunks brought (bundles/chunk-loader.ts copies a chunk's exports in). */
export const provided: Partial<Code> = {};

/** The loader of the `requests` chunk, set by bundles/service.ts. */
export const lazy: { load?: (chunk: string, part: string) => Promise<unknown> } = {};

const stub = <K extends keyof Code>(name: K): Code[K] => (async (...args: Parameters<Code[K]>) => {
  const code = (provided[name] ?? await lazy.load!('requests', name)) as ((...a: unknown[]) => unknown) | undefined;
  return code ? code(...args) : null;
}) as Code[K];

export const requestChoices = stub('requestChoices');
export const requestFeed = stub('requestFeed');
export const requestFeeds = stub('requestFeeds');
