/**
 * First-party key/value storage on localStorage. When storage is blocked (privacy settings, sandboxed
 * iframes, Safari private mode quota of 0), every access throws; the values then live in memory for the
 * life of the page, so an id is minted once per page view rather than once per event.
 */
export class LocalStore {
  readonly #memory = new Map<string, string>();

  get(key: string): string | null {
    try {
      const value = localStorage.getItem(key);
      if (value !== null) return value;
    } catch {
      // blocked: fall through to the in-memory copy
    }
    return this.#memory.get(key) ?? null;
  }

  set(key: string, value: string): void {
    this.#memory.set(key, value);
    try {
      localStorage.setItem(key, value);
    } catch {
      // blocked or over quota: the in-memory copy keeps the page consistent
    }
  }

  remove(key: string): void {
    this.#memory.delete(key);
    try {
      localStorage.removeItem(key);
    } catch {
      // blocked: nothing was stored there
    }
  }
}

/**
 * Storage keys, in one place so that clearing "session data" cannot forget one. The snippet's loader
 * (bundles/snippet.js) reads `profileId` (and writes it for a new visitor), `session`, `optIn` and `choices`
 * before the SDK loads: keep those names and formats.
 */
export const KEYS = {
  profileId: 'svc.profileId',
  session: 'svc.session',
  optIn: 'svc.optIn',
  productId: 'svc.productId',
  /** The visitor's consent choice: `{categories: {name: boolean}, validUntil}`. */
  consent: 'svc.consent',
  /** Consent records the service has not acknowledged yet. */
  consentPending: 'svc.consentPending',
  /**
   * The variations `<svc-experience>` last showed this visitor, `{experienceName: variation}`: the snippet's loader
   * shows a known one in the first paint (the service still confirms it). Read by bundles/snippet.js: keep the name.
   */
  choices: 'svc.choices',
} as const;
