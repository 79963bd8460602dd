// The organization's audit entries said in words, case by case: what the People and keys tab of the audit log shows.
import { expect } from '@open-wc/testing';
import type { AccessAuditEntry } from './access.js';
import { accessChange } from './access-audit.js';

type Side = Record<string, unknown> | null;

const KEY = 'k0123456789abcdef01234567';
const OLA = 'ola@example.com';
const at = '2026-01-02T03:04:05.000Z';
const person = (action: AccessAuditEntry['action'], before: Side, after: Side): AccessAuditEntry =>
  ({ at, keyId: 'admtest', action, kind: 'person', name: OLA, before, after });
const key = (action: AccessAuditEntry['action'], before: Side, after: Side): AccessAuditEntry =>
  ({ at, keyId: 'admtest', action, kind: 'key', name: KEY, before, after });

const cases: [string, AccessAuditEntry, string][] = [
  ['a person added for every project', person('create', null, { role: 'viewer', projects: null }), `Added ${OLA} as viewer`],
  ['a person added for one project', person('create', null, { role: 'editor', projects: ['shop'] }), `Added ${OLA} as editor of shop`],
  ['a new role', person('update', { role: 'viewer', projects: null }, { role: 'editor', projects: null }), `Made ${OLA} editor (was viewer)`],
  ['other projects', person('update', { role: 'viewer', projects: null }, { role: 'viewer', projects: ['shop', 'web'] }),
    `Gave ${OLA} access to shop, web (was every project)`],
  ['a new role and other projects', person('update', { role: 'viewer', projects: ['shop'] }, { role: 'admin', projects: null }),
    `Made ${OLA} admin of every project (was viewer of shop)`],
  ['the same access saved again', person('update', { role: 'viewer', projects: null }, { role: 'viewer', projects: null }), `Kept ${OLA} as viewer`],
  ['a person removed', person('delete', { role: 'editor', projects: ['shop'] }, null), `Removed ${OLA} (was editor of shop)`],
  ['an invitation', person('invite', null, { expiresAt: '2026-01-09T03:04:05.000Z' }), `Invited ${OLA}, link valid until <2026-01-09T03:04:05.000Z>`],
  ['a key made for a project, expiring', key('create', null, { name: 'kiosk', role: 'viewer', projects: ['shop'], expiresAt: '2026-06-30T00:00:00.000Z' }),
    'Made key k012345… (kiosk) as viewer of shop, valid until <2026-06-30T00:00:00.000Z>'],
  ['a key made for good', key('create', null, { name: 'deploy', role: 'admin', projects: null, expiresAt: null }), 'Made key k012345… (deploy) as admin'],
  ['a key revoked', key('delete', { name: 'kiosk', role: 'viewer', projects: ['shop'] }, null), 'Revoked key k012345… (kiosk)'],
];

describe('accessChange', () => {
  for (const [what, entry, sentence] of cases) {
    it(`says ${what} as "${sentence}"`, () => {
      expect(accessChange(entry, (iso) => `<${iso}>`)).to.equal(sentence);
    });
  }
});
