import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { InstanceSlot } from '../src/plugin-api.js';

describe('InstanceSlot: where elements find their SDK instance', () => {
  afterEach(() => sinon.restore());

  it('calls a watcher at once when an instance is set, and on every change after', () => {
    const slot = new InstanceSlot<string>();
    slot.set('first');
    const seen: (string | undefined)[] = [];
    const unwatch = slot.watch((v) => seen.push(v));
    slot.set(undefined);
    slot.set('second');
    unwatch();
    slot.set('third');
    expect(seen).to.deep.equal(['first', undefined, 'second']);
  });

  it('when() answers an instance set later, or undefined once the timeout has passed', async () => {
    const clock = sinon.useFakeTimers();
    const slot = new InstanceSlot<string>();
    const later = slot.when(800);
    slot.set('registered');
    expect(await later).to.equal('registered');
    const none = new InstanceSlot<string>().when(800);
    clock.tick(799);
    let settled = false;
    void none.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).to.equal(false);
    clock.tick(1);
    expect(await none).to.equal(undefined);
  });

  it('a remover clears the slot only while its value is current: removing an older instance leaves the newer one', () => {
    const slot = new InstanceSlot<string>();
    const seen: (string | undefined)[] = [];
    slot.watch((v) => seen.push(v));
    const removeA = slot.set('a');
    const removeB = slot.set('b');
    removeA();
    expect(slot.current).to.equal('b');
    removeB();
    expect(slot.current).to.equal(undefined);
    removeB();
    expect(seen).to.deep.equal(['a', 'b', undefined]);
  });
});
