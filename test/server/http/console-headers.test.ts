// The console's answers under /admin/ (its page, its assets, single sign-on's redirects, a miss) carry a strict
// Content-Security-Policy and X-Frame-Options: no other site's page can frame the console, and the page runs no script
// but the service's own files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const REPO = join(import.meta.dirname, '..', '..', '..');

describe('the console\'s security headers', () => {
  const h = useApp(SQLITE_DRIVER, () => {
    const config = testConfig();
    // A provider nobody answers at: the start's redirect back to the console with sso_failed is an answer too.
    config.organizations.acme!.oidc = { issuer: 'http://127.0.0.1:9/', clientId: 'c', clientSecret: 's', redirectUri: 'http://127.0.0.1:8787/admin/oidc/callback' };
    return { config, staticRoot: REPO };
  });

  const answers: [string, number][] = [
    ['/admin/', 200],
    ['/admin/index.html', 200],
    ['/admin/admin.css', 200],
    ['/admin/admin-app.ts', 404],
    ['/admin/oidc/start?organization=acme', 302],
    ['/admin/oidc/callback?code=x&state=y', 302],
  ];
  for (const [url, status] of answers) {
    it(`sends a strict CSP and X-Frame-Options: DENY with ${url} (${status})`, async () => {
      const res = await h.app.inject({ url });
      assert.equal(res.statusCode, status, res.body);
      const csp = String(res.headers['content-security-policy'] ?? '');
      const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(' ')]));
      assert.equal(directives.get('default-src'), '\'self\'', csp);
      assert.equal(directives.get('frame-ancestors'), '\'none\'', csp);
      assert.equal(directives.get('object-src'), '\'none\'', csp);
      assert.equal(directives.get('base-uri'), '\'none\'', csp);
      assert.equal(directives.get('form-action'), '\'self\'', csp);
      assert.ok(!csp.includes('unsafe-'), csp);
      assert.equal(res.headers['x-frame-options'], 'DENY');
    });
  }

  it('has no inline script or style in the console\'s page that the policy would refuse', async () => {
    const page = (await h.app.inject({ url: '/admin/' })).body;
    assert.match(page, /<script src="\/svc\/svc-admin\.js"><\/script>/);
    assert.doesNotMatch(page, /<script(?![^>]*\ssrc=)[^>]*>/, 'a script without src');
    assert.doesNotMatch(page, /<style|\sstyle=|\son\w+=/, 'inline style or handler');
  });

  it('leaves the demo page alone', async () => {
    const demo = await h.app.inject({ url: '/' });
    assert.equal(demo.statusCode, 200);
    assert.equal(demo.headers['content-security-policy'], undefined);
  });
});
