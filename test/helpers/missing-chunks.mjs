// A copy of dist/service.js whose chunks cannot be fetched, for the test of what a page shows then
// (test/page-profiles.test.ts): /missing-chunks/service.js is dist/service.js, anything else below it answers 404.
export function missingChunks() {
  return (ctx, next) => {
    if (!ctx.path.startsWith('/missing-chunks/')) return next();
    if (ctx.path !== '/missing-chunks/service.js') {
      ctx.status = 404;
      return undefined;
    }
    ctx.path = '/dist/service.js';
    return next();
  };
}
