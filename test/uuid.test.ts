import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { uuid } from '../src/uuid.js';

// RFC 9562 version 7: the Unix time in milliseconds first, then version 7, a 12-bit counter, variant 10, random bits.
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The 48-bit millisecond timestamp an id carries. */
const msOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('uuid() — time-ordered event ids (UUIDv7)', () => {
  afterEach(() => sinon.restore());

  it('has the version 7 layout and carries the current millisecond', () => {
    const before = Date.now();
    const id = uuid();
    const after = Date.now();
    expect(id).to.match(UUID_V7);
    expect(msOf(id)).to.be.within(before, after);
  });

  it('increases within one millisecond, borrowing the next one when the counter runs out, and never repeats', () => {
    // A day ahead of the real clock: later than any id minted so far.
    const t0 = Date.now() + 86_400_000;
    const clock = sinon.stub(Date, 'now').returns(t0);
    const ids = Array.from({ length: 10_000 }, () => uuid());
    expect(ids.every((id) => UUID_V7.test(id))).to.equal(true);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!, `${ids[i]} after ${ids[i - 1]}`).to.equal(true);
    expect(new Set(ids).size).to.equal(ids.length);
    // 10,000 ids in one millisecond outrun a 12-bit counter: later ones carry the following milliseconds.
    expect(msOf(ids[0]!)).to.equal(t0);
    expect(msOf(ids.at(-1)!)).to.be.greaterThan(msOf(ids[0]!));
    // The real clock catching up resumes from the clock, still in order.
    clock.returns(msOf(ids.at(-1)!) + 5);
    const next = uuid();
    expect(next > ids.at(-1)!).to.equal(true);
    expect(msOf(next)).to.equal(msOf(ids.at(-1)!) + 5);
  });

  it('sorts by time across milliseconds, and a clock that steps back does not reorder ids', () => {
    const later = Date.now() + 2 * 86_400_000;
    const clock = sinon.stub(Date, 'now').returns(later);
    const first = uuid();
    clock.returns(later + 1);
    const second = uuid();
    clock.returns(later - 365 * 86_400_000); // NTP stepped the clock back a year
    const third = uuid();
    expect([first, second, third]).to.deep.equal([first, second, third].sort());
    expect(new Set([first, second, third]).size).to.equal(3);
  });

  it('has 62 random bits: 100,000 ids from one millisecond share no random tail', () => {
    sinon.stub(Date, 'now').returns(Date.now() + 3 * 86_400_000);
    const tails = new Set(Array.from({ length: 100_000 }, () => uuid().slice(19)));
    expect(tails.size).to.equal(100_000);
  });
});
