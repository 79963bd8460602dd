import { LitElement, type PropertyDeclarations, type PropertyValues } from 'lit';
import { ApiError, type AdminApi } from './admin-api.js';

export type ViewState = 'loading' | 'ready' | 'empty' | 'error';

/**
 * A console view that loads what it shows from the API: when `api` is set or changes, on `reload()`, and never after
 * it left the page. Only the load asked for last is shown: starting one abandons the one under way, so a slow answer
 * never overwrites a newer one. A subclass reads and shows its data in `load()`; a failure shows as `error` with
 * status `error`.
 *
 * @attr status - Reflected, read-only: `loading`, `ready`, `empty` or `error`.
 */
export abstract class ApiView extends LitElement {
  // Typed as Lit's declarations, not as this literal: a subclass's `properties` names only its own, and Lit adds these.
  static override properties: PropertyDeclarations = {
    api: { attribute: false },
    status: { reflect: true },
    error: { state: true },
  };

  declare api: AdminApi | undefined;
  declare status: ViewState;
  /** Why the last load failed. */
  declare error: ApiError | undefined;
  #request: AbortController | undefined;

  constructor() {
    super();
    this.status = 'loading';
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#request?.abort();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('api')) void this.reload();
  }

  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('h1')?.focus();
  }

  /** Loads again, abandoning the load under way; without `api`, does nothing. */
  async reload(): Promise<void> {
    this.#request?.abort();
    const api = this.api;
    if (!api) return;
    const request = (this.#request = new AbortController());
    try {
      await this.load(api, request.signal);
    } catch (error) {
      if (request.signal.aborted) return;
      this.error = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
      this.status = 'error';
    }
  }

  /**
   * Reads the view's data with `signal` and shows it, with its status, unless `signal` was aborted meanwhile. Called at
   * once by `reload()`: what is set before the first `await` (status `loading`) shows while the data is read.
   */
  protected abstract load(api: AdminApi, signal: AbortSignal): Promise<void>;
}
