// Test-only: a real failed module load for the browser tests. A page sets the cookie `svc-fail-modules` to a
// comma-separated list of paths (`/plugins/consent-banner/texts/es.ts`), and the test runner's dev server answers
// 503 for those paths while the cookie is set: what a dynamic import() meets when a chunk cannot be fetched.

const COOKIE = 'svc-fail-modules';

export function failingModulesMiddleware() {
  return async function failingModules(ctx, next) {
    const listed = ctx.cookies.get(COOKIE);
    if (listed && decodeURIComponent(listed).split(',').includes(ctx.path)) {
      ctx.status = 503;
      ctx.body = 'unavailable (svc-fail-modules)';
      return;
    }
    return next();
  };
}
