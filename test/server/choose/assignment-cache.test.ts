// The per-node cache of stored assignments and the storage port that consults it (real SQLite).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AssignmentCache } from '../../../server/choose/assignment-cache.js';
import { storageAssignmentPort } from '../../../server/choose/storage-assignment-port.js';
import { chooseStore, type AssignmentStore } from '../../../server/choose/choose-store.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import { firstAssignment, firstAssignments, getAssignment } from '../helpers/stored-rows.js';

const P = 'acme/cache';

describe('AssignmentCache and the storage assignment port', () => {
  const h = useStorage(SQLITE_DRIVER);

  it('evicts the oldest entry beyond its bound', () => {
    const cache = new AssignmentCache(2);
    cache.set(P, 'e', 'u1', 'a');
    cache.set(P, 'e', 'u2', 'b');
    cache.set(P, 'e', 'u3', 'a');
    assert.equal(cache.size, 2);
    assert.equal(cache.get(P, 'e', 'u1'), undefined);
    assert.equal(cache.get(P, 'e', 'u3'), 'a');
  });

  it('serves the stored variation, not the proposal, and remembers it', async () => {
    await firstAssignment(h.storage, { project: P, experience: 'e1', unit: 'u-stored', variation: 'a', hashVersion: 2 });
    const cache = new AssignmentCache();
    const port = storageAssignmentPort(chooseStore(h.storage), P, cache);
    const answer = await port.getOrCreateAssignments([
      { experience: 'e1', unitKey: 'u-stored', proposedVariation: 'b', hashVersion: 2 },
      { experience: 'e2', unitKey: 'u-stored', proposedVariation: 'b', hashVersion: 2 },
    ]);
    assert.deepEqual(answer, ['a', 'b']);
    assert.equal(cache.get(P, 'e1', 'u-stored'), 'a');
    assert.equal((await getAssignment(h.storage, P, 'e2', 'u-stored'))?.variation, 'b');
  });

  it('asks storage only for the pairs the cache does not hold', async () => {
    const cache = new AssignmentCache();
    cache.set(P, 'e3', 'u-mixed', 'cached');
    const asked: string[] = [];
    const spy: AssignmentStore = {
      getOrCreateAssignments: (inputs) => {
        asked.push(...inputs.map((i) => i.experience));
        return firstAssignments(h.storage, inputs);
      },
    };
    const port = storageAssignmentPort(spy, P, cache);
    const answer = await port.getOrCreateAssignments([
      { experience: 'e3', unitKey: 'u-mixed', proposedVariation: 'x', hashVersion: 2 },
      { experience: 'e4', unitKey: 'u-mixed', proposedVariation: 'y', hashVersion: 2 },
    ]);
    assert.deepEqual(answer, ['cached', 'y']);
    assert.deepEqual(asked, ['e4']);
    // Now both are cached: answered at once (an array, not a promise), storage not asked again.
    const again = port.getOrCreateAssignments([
      { experience: 'e3', unitKey: 'u-mixed', proposedVariation: 'x', hashVersion: 2 },
      { experience: 'e4', unitKey: 'u-mixed', proposedVariation: 'x', hashVersion: 2 },
    ]);
    assert.ok(Array.isArray(again));
    assert.deepEqual(again, ['cached', 'y']);
    assert.deepEqual(asked, ['e4']);
  });
});
