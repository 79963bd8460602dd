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

  it('removing one value leaves the others: the newest left is current, and watchers hear only real changes', () => {
    const slot = new InstanceSlot<string>();
    const seen: (string | undefined)[] = [];
    slot.watch((v) => seen.push(v));
    const removeA = slot.set('a');
    const removeB = slot.set('b');
    removeA();
    expect(slot.current, 'removing an older instance leaves the current one').to.equal('b');
    removeB();
    expect(slot.current).to.equal(undefined);
    const removeC = slot.set('c');
    slot.set('d');
    slot.set(undefined);
    removeC();
    expect(slot.current, 'set(undefined) removes every value').to.equal(undefined);
    expect(seen).to.deep.equal(['a', 'b', undefined, 'c', 'd', undefined]);
    const removeE = slot.set('e');
    const removeF = slot.set('f');
    removeF();
    expect(slot.current, 'removing the newest makes the one before current again').to.equal('e');
    removeE();
  });
});

