import type { FastifyInstance } from 'fastify';

// The console is signed in by a cookie, so a page of another site (or another port of this one) that frames it would
// have it act for the visitor under its own buttons: no page may frame it (frame-ancestors, and X-Frame-Options for
// browsers that predate it). It runs only the service's own files: its page has no inline script or style (Lit's
// styles are constructed sheets), and single sign-on reaches the provider by redirect, never by a request of the page.

/** What every answer under /admin/ is sent with. */
export const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'; object-src 'none'; base-uri 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
};

/** `/admin`, `/admin/…` or `/admin?…`, not `/administer`. */
const underConsole = (url: string): boolean => url.startsWith('/admin') && (url.length === 6 || url[6] === '/' || url[6] === '?');

/** Adds the console's headers to every answer under /admin/: its page and assets, single sign-on's redirects, misses. */
export function consoleHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (underConsole(request.url)) reply.headers(CONSOLE_HEADERS);
    done();
  });
}
