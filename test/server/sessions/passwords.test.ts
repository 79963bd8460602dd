// The password rules and hashing people's console passwords go through: length (12 to 128), any characters, no
// truncation, the commonest passwords refused, scrypt hashes verified in constant time (an unknown person's too).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { ServiceError } from '../../../server/errors/service-error.js';
import { checkNewPassword, hashPassword, verifyPassword } from '../../../server/sessions/passwords.js';

const refused = (value: unknown, email?: string): string => {
  try {
    checkNewPassword(value, email);
  } catch (error) {
    assert.ok(error instanceof ServiceError && error.code === 'invalid_request');
    return error.message;
  }
  assert.fail(`accepted ${String(value)}`);
};

describe('passwords', () => {
  it('takes 12 to 128 characters of anything (spaces, emoji), counted as characters, with no composition rule', () => {
    for (const ok of ['twelve chars', 'x'.repeat(11) + 'y', 'a'.repeat(127) + 'b', '🔑🔑🔑 mot de passe', 'all lower case words here']) {
      assert.equal(checkNewPassword(ok), ok);
    }
    assert.match(refused('eleven char'), /12 to 128 characters/);
    assert.match(refused('a'.repeat(128) + 'b'), /12 to 128 characters/);
    assert.match(refused(123456789012), /12 to 128 characters/);
    assert.equal(checkNewPassword('🔑'.repeat(11) + '!'), '🔑'.repeat(11) + '!', 'twelve characters, though 45 UTF-16 units');
  });

  it('refuses the commonest passwords, one character repeated, and the person\'s own email', () => {
    for (const common of ['Password1234', '123456789012', 'qwertyuiopasdfgh', 'zzzzzzzzzzzzzz']) assert.match(refused(common), /attacker tries/);
    assert.match(refused('Mia@Example.com', 'mia@example.com'), /attacker tries/);
  });

  it('hashes with a fresh salt, verifies the whole password (no truncation) and nothing else', async () => {
    const long = `${'long passphrase '.repeat(7)}end`;
    const [a, b] = [await hashPassword(long), await hashPassword(long)];
    assert.notEqual(a, b, 'a fresh salt each time');
    assert.equal(await verifyPassword(long, a), true);
    assert.equal(await verifyPassword(long.slice(0, 72), a), false, 'no truncation (bcrypt stops at 72 bytes; this does not)');
    assert.equal(await verifyPassword(`${long} `, a), false);
    assert.equal(await verifyPassword('🔑🔑🔑 mot de passe', await hashPassword('🔑🔑🔑 mot de passe')), true);
  });

  it('hashes for an unknown person too (the same work as a wrong password), and answers false', async (t) => {
    const scrypt = t.mock.method(crypto, 'scrypt');
    const known = await hashPassword('a known person\'s password');
    assert.equal(await verifyPassword('anything at all', null), false);
    scrypt.mock.resetCalls();
    assert.equal(await verifyPassword('anything at all', known), false);
    const wrongPassword = scrypt.mock.calls.map((c) => c.arguments[3]);
    scrypt.mock.resetCalls();
    assert.equal(await verifyPassword('anything at all', null), false);
    // The decoy is made once; from then on an unknown person costs one scrypt with the same parameters as a person's.
    assert.deepEqual(scrypt.mock.calls.map((c) => c.arguments[3]), wrongPassword);
    assert.deepEqual(wrongPassword.map((o) => ({ ...o, maxmem: undefined })), [{ N: 2 ** 15, r: 8, p: 3, maxmem: undefined }]);
    assert.equal(await verifyPassword('anything at all', 'bcrypt$not-ours'), false);
  });
});
