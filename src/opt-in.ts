import { KEYS, type LocalStore } from './local-store.js';

/**
 * Tracking opt-in, persisted per browser and shared by tabs: a `storage` event from another tab
 * updates this one, so an opt-out anywhere stops tracking everywhere at once.
 */
export class OptIn {
  readonly #store: LocalStore;
  readonly #defaultOptIn: boolean;
  #optedIn: boolean;
  readonly #onChange: (optedIn: boolean) => void;
  readonly #onStorage = (e: StorageEvent): void => {
    if (e.key === KEYS.optIn || e.key === null) this.#set(this.#read(), false);
  };

  constructor(store: LocalStore, onChange: (optedIn: boolean) => void, defaultOptIn = true) {
    this.#store = store;
    this.#defaultOptIn = defaultOptIn;
    this.#onChange = onChange;
    this.#optedIn = this.#read();
    window.addEventListener('storage', this.#onStorage);
  }

  get optedIn(): boolean {
    return this.#optedIn;
  }

  optIn(): void {
    this.#set(true, true);
  }

  optOut(): void {
    this.#set(false, true);
  }

  /** Back to the policy's default, as on a first visit (the stored flag removed). */
  reset(): void {
    this.#store.remove(KEYS.optIn);
    this.#set(this.#defaultOptIn, false);
  }

  dispose(): void {
    window.removeEventListener('storage', this.#onStorage);
  }

  #read(): boolean {
    const v = this.#store.get(KEYS.optIn);
    return v === null ? this.#defaultOptIn : v === 'true';
  }

  #set(optedIn: boolean, persist: boolean): void {
    // The flag itself is the one thing written even when opting out (issue 2, item 5).
    if (persist) this.#store.set(KEYS.optIn, String(optedIn));
    // Opted out, nobody is assigned: no known variation may be shown in a first paint either.
    if (!optedIn) this.#store.remove(KEYS.choices);
    if (optedIn === this.#optedIn) return;
    this.#optedIn = optedIn;
    this.#onChange(optedIn);
  }
}
