// The shop integrations dist/service.js can turn on. A platform plugin registers itself with a platform.json in its
// folder, `{"flag": "platformA"}`: the build (esbuild.config.mjs) makes its folder's index.ts a chunk named after the
// folder, and lists it here under its flag; the factory is index.ts's export of the flag's name (`platformA()`). Neither
// this file nor src/ names a platform: adding one is adding its folder. The contract's `platformA` and `platformB` are
// two such flags.

/** Set by the build: each registered platform's config flag and its chunk, `{"platformA": "platform-a", …}`. */
declare const SVC_PLATFORMS: Record<string, string>;

/** Each registered platform's config flag and the chunk that holds its plugin. */
export const PLATFORMS: Readonly<Record<string, string>> = SVC_PLATFORMS;
