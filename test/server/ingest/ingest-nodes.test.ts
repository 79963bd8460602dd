// Ingestion across processes, over HTTP, through the path the track route takes (on SQLite the ingestion writer
// thread, on PostgreSQL the group commit): a service killed (SIGKILL) right after its answers has every acknowledged
// event; and two service processes on one PostgreSQL database, sent the same batches at the same time, store each
// event once between them (README, "Past one machine").
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { forkHelper } from '../helpers/fork-helper.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { countEvents } from '../helpers/stored-rows.js';
import { basic } from '../helpers/test-config.js';
import { useDatabase } from '../helpers/use-test-app.js';

interface Node {
  child: ChildProcess;
  track: (batch: ServiceEvent[]) => Promise<{ accepted: number; duplicates: number }>;
  exited: Promise<NodeJS.Signals | null>;
}

async function startNode(location: string): Promise<Node> {
  const { child, firstMessage, exited } = forkHelper<{ port: number }>('track-server.ts', [location]);
  const { port } = await firstMessage;
  const track = async (batch: ServiceEvent[]) => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/acme/projects/shop/sources/web/track`, {
      method: 'POST', headers: { authorization: basic('web1.p4ss'), 'content-type': 'application/json' }, body: JSON.stringify({ batch }),
    });
    if (response.status !== 200) throw new Error(`track answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { accepted: number; duplicates: number };
  };
  return { child, track, exited };
}

const batchesOf = (count: number, size: number, tag: string): ServiceEvent[][] =>
  Array.from({ length: count }, (_, b) => Array.from({ length: size }, () => makeEvent({ profileId: `${tag}-${b % 7}` })));

for (const driver of DRIVERS) {
  describe(`a crash right after track answers (${driver.name})`, () => {
    const h = useDatabase(driver);

    it('loses none of the acknowledged events', async () => {
      const node = await startNode(h.db.location);
      let accepted = 0;
      for (let round = 0; round < 10; round++) {
        const answers = await Promise.all(batchesOf(10, 50, `crash-${round}`).map(node.track));
        for (const a of answers) accepted += a.accepted;
      }
      node.child.kill('SIGKILL');
      assert.equal(await node.exited, 'SIGKILL');
      assert.equal(accepted, 5000);
      const storage = await h.db.open();
      try {
        assert.equal(await countEvents(storage, 'acme/shop'), accepted);
      } finally {
        await storage.close();
      }
    });
  });
}

describe('two service processes on one PostgreSQL database', () => {
  let nodes: Node[] = [];
  // Registered before useDatabase's hooks, so the nodes stop before the database is dropped.
  after(async () => {
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(nodes.map((node) => node.exited));
  });
  const h = useDatabase(POSTGRES_DRIVER);
  before(async () => {
    nodes = await Promise.all([startNode(h.db.location), startNode(h.db.location)]);
  });

  it('store each event once when both are sent the same batches at once', async () => {
    // 40 batches, each sharing events with the next: 40 × 50 events, 1,961 distinct; every batch goes to both nodes.
    const batches = batchesOf(40, 49, 'nodes');
    batches.forEach((batch, i) => batch.push((batches[i + 1] ?? batches[0]!)[0]!));
    const distinct = new Set(batches.flat().map((e) => e.eventId)).size;
    const answers = await Promise.all(batches.flatMap((batch) => nodes.map((node) => node.track(batch))));
    for (const a of answers) assert.equal(a.accepted + a.duplicates, 50);
    assert.equal(answers.reduce((sum, a) => sum + a.accepted, 0), distinct);
    const storage = await h.db.open();
    try {
      assert.equal(await countEvents(storage, 'acme/shop'), distinct);
    } finally {
      await storage.close();
    }
  });
});
