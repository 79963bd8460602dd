// Production builds replace SVC_DEV with `false` (esbuild `define`), so every `if (DEV_MODE)` branch and the
// diagnostics inside it are dropped by the minifier; tests and unbundled ESM keep them (Lit's DEV_MODE pattern).
declare const SVC_DEV: boolean | undefined;
declare const SVC_VERSION: string | undefined;

export const DEV_MODE: boolean = typeof SVC_DEV === 'undefined' ? true : SVC_DEV;

/** The SDK version, stamped by the build. */
export const VERSION: string = typeof SVC_VERSION === 'undefined' ? '0.0.0-dev' : SVC_VERSION;
