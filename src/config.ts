/**
 * What `new ServiceJs(config)` takes.
 *
 * @example
 * const svc = new ServiceJs({
 *   organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss',
 *   platformA: false, platformB: false,
 * });
 */
export interface ServiceConfig {
  organization: string;
  sourceId: string;
  project: string;
  /** `<username>.<password>`; sent as HTTP Basic credentials, split at the first dot. */
  writeKey: string;
  /**
   * The contract's first platform flag: turns on the platform plugin registered under `platformA`. `false` is a value,
   * not a missing field.
   */
  platformA: boolean;
  /** The contract's second platform flag: turns on the platform plugin registered under `platformB`. */
  platformB: boolean;
  /**
   * Any further platform's flag (`platformC: true`), named by its plugin's registration; optional, and a boolean when
   * given. The core knows no platform: a flag only says which registered plugin to turn on.
   */
  [flag: `platform${string}`]: boolean | undefined;
  /** Base URL of the service ending in `/v1`; default: the origin the SDK script came from, plus `/v1`. */
  api?: string;
  /** Consent policy; default: not required (tracking on until `optOut()`). */
  consent?: ConsentPolicy;
  /**
   * Automatic tracking by `dist/service.js` (`data-auto-track="false"` on its script tag): on unless
   * `false`; an object turns single kinds off. ESM users install it themselves: `svc.use(autoTrack(options))`.
   * @example { autoTrack: { click: false, change: false } }
   */
  autoTrack?: boolean | AutoTrackOptions;
}

/** Kinds of automatic tracking; each is on unless set to `false`. */
export interface AutoTrackOptions {
  /** `View Page` on load and on every History API / `popstate` navigation. */
  page?: boolean;
  /** `Leave Page` on pagehide and before each navigation, with the time spent on the page. */
  leave?: boolean;
  /** `Click On` for links and buttons. */
  click?: boolean;
  /** `Change On` for form fields (values only from fields marked `data-svc-capture`). */
  change?: boolean;
  /** `Submit On` for forms. */
  submit?: boolean;
  /** `Session start` with referrer, landing page and UTM parameters. */
  session?: boolean;
  /**
   * More query parameter names whose values are redacted in the URLs of automatic events, besides those containing
   * pass, pwd, token, secret, auth, session, email or key (e-mail addresses are always redacted).
   */
  redactParams?: string[];
}

/**
 * With `required: true`, nothing is tracked or stored (beyond the choice itself) until the visitor accepts;
 * the choice holds until its `validUntil`, then the visitor is asked again.
 */
export interface ConsentPolicy {
  required?: boolean;
  /** Default: necessary, analytics, marketing, personalization. `analytics` governs tracking. */
  categories?: string[];
  /**
   * The categories that sell or share personal data: refused without asking when the browser sends Global Privacy
   * Control (`navigator.globalPrivacyControl`). Default: marketing, advertising, personalization.
   */
  gpcCategories?: string[];
}

export const DEFAULT_CONSENT_CATEGORIES: readonly string[] = ['necessary', 'analytics', 'marketing', 'personalization'];

/** The validated configuration the SDK works from. Kept private to the instance: it holds the write key. */
export interface ResolvedConfig extends Required<Omit<ServiceConfig, 'consent' | 'autoTrack'>> {
  consent: Required<ConsentPolicy>;
  /** `Basic …` header value derived from the write key. */
  authorization: string;
}

export const CONFIG_ERROR = 'ServiceJs initialization failed: All config fields must be provided.';

const STRING_FIELDS = ['organization', 'sourceId', 'project', 'writeKey'] as const;
const REQUIRED_FLAGS = { platformA: 0, platformB: 0 };

// Captured while this module is evaluated: for a classic <script> that is the only moment
// `document.currentScript` names the SDK's own tag.
const scriptSrc = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;

function defaultApi(): string {
  const origin = scriptSrc ? new URL(scriptSrc, location.href).origin : location.origin;
  return `${origin}/v1`;
}

/** Checks every field and derives what the transport needs. Throws CONFIG_ERROR. */
export function resolveConfig(config: ServiceConfig | undefined | null): ResolvedConfig {
  const text = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
  const autoTrack: unknown = config?.autoTrack;
  if (
    config === null || typeof config !== 'object'
    || !STRING_FIELDS.every((field) => text(config[field]))
    // The contract's two flags are required; any other platform's flag is a boolean when given.
    || Object.keys({ ...REQUIRED_FLAGS, ...config })
      .some((key) => key.startsWith('platform') && typeof config[key as `platform${string}`] !== 'boolean')
    || (config.api !== undefined && !text(config.api))
    || (autoTrack !== undefined && typeof autoTrack !== 'boolean' && (autoTrack === null || typeof autoTrack !== 'object'))
  ) {
    throw new Error(CONFIG_ERROR);
  }
  const api = (config.api ?? defaultApi()).replace(/\/+$/, '');
  return {
    ...config,
    api,
    authorization: basicAuthorization(config.writeKey),
    consent: {
      required: config.consent?.required === true,
      categories: config.consent?.categories?.length ? [...config.consent.categories] : [...DEFAULT_CONSENT_CATEGORIES],
      gpcCategories: config.consent?.gpcCategories ?? ['marketing', 'advertising', 'personalization'],
    },
  };
}

/** `<username>.<password>` → `Basic base64(username:password)`, splitting at the FIRST dot only. */
export function basicAuthorization(writeKey: string): string {
  // The first dot becomes the colon; a key without one is all username, with an empty password.
  const credentials = writeKey.includes('.') ? writeKey.replace('.', ':') : `${writeKey}:`;
  // btoa takes Latin-1 only; encode as UTF-8 bytes first so any key is representable.
  const bytes = new TextEncoder().encode(credentials);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
