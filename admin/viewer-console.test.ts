// A viewer's console against our running service: the key made for reading shows no write and no access management
// (the service refuses them anyway: test/server/team-access.test.ts).
import { expect, fixture, html } from '@open-wc/testing';
import { defineResults } from '../plugins/results/index.js';
import type { SvcAdmin } from './admin-app.js';
import { SESSION_KEY } from './admin-session.js';
import { ADMIN_KEY, find, resetAddress, text, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';

defineResults();
defineAdmin();

async function makeKey(role: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${location.origin}/v1/acme/keys`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `console ${role}`, role }),
  });
  expect(res.status).to.equal(201);
  return res.json() as Promise<{ id: string; key: string }>;
}

const revoke = (id: string) => fetch(`${location.origin}/v1/acme/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
const navTexts = (app: SvcAdmin) => [...app.shadowRoot!.querySelectorAll('header nav button')].map((b) => text(b));

describe('<svc-admin> for a viewer', () => {
  beforeEach(() => {
    sessionStorage.clear();
    resetAddress();
  });
  afterEach(() => sessionStorage.clear());

  it('shows the experiences and metrics without New, Edit or lifecycle steps, and no privacy, people or keys', async function () {
    this.timeout(20_000);
    const { id, key } = await makeKey('viewer');
    try {
      sessionStorage.setItem(SESSION_KEY, JSON.stringify({ organization: 'acme', project: 'shop', key }));
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await until(() => navTexts(app).length === 3 || null, 'the nav of a viewer');
      expect(navTexts(app)).to.deep.equal(['Experiences', 'Audit log', 'Metrics']);
      const list = await until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');
      await until(() => list.shadowRoot!.querySelector('tr[data-name="results-hero"]'), 'the rows');
      const buttons = [...list.shadowRoot!.querySelectorAll('button')].map((b) => text(b));
      expect(buttons.some((b) => b.startsWith('New experience') || b.startsWith('Edit') || b.startsWith('Stop') || b.startsWith('Start'))).to.equal(false);
      expect(buttons.some((b) => b.startsWith('Results'))).to.equal(true);
      await expect(app).to.be.accessible();
    } finally {
      await revoke(id);
    }
  });

  it('shows an editor every write, and still no people or keys', async function () {
    this.timeout(20_000);
    const { id, key } = await makeKey('editor');
    try {
      sessionStorage.setItem(SESSION_KEY, JSON.stringify({ organization: 'acme', project: 'shop', key }));
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await until(() => navTexts(app).length === 3 || null, 'the nav of an editor');
      const list = await until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');
      expect([...list.shadowRoot!.querySelectorAll('button')].some((b) => text(b) === 'New experience')).to.equal(true);
    } finally {
      await revoke(id);
    }
  });
});
