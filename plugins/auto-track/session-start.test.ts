import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { SESSION_TIMEOUT_MS, type ServiceEvent } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { autoTrack } from './index.js';

const starts = (events: ServiceEvent[]): ServiceEvent[] => events.filter((e) => e.name === 'Session start');

describe('auto-track: Session start', () => {
  const home = location.href;
  let capture: ReturnType<typeof captureEvents>;
  let clock: sinon.SinonFakeTimers;

  beforeEach(() => {
    stubFetch();
    clock = sinon.useFakeTimers({ now: Date.UTC(2025, 0, 1), toFake: ['Date'] });
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
    history.replaceState(null, '', home);
  });

  const utmCases: { query: string; utm: Record<string, string> | undefined }[] = [
    { query: '?utm_source=news&utm_medium=email&utm_campaign=spring', utm: { source: 'news', medium: 'email', campaign: 'spring' } },
    { query: '?utm_term=mugs&utm_content=hero&utm_source=ads', utm: { source: 'ads', term: 'mugs', content: 'hero' } },
    { query: '?utm_source=&ref=x', utm: undefined },
    { query: '', utm: undefined },
  ];
  for (const { query, utm } of utmCases) {
    it(`landing on "${query || '(no query)'}" starts a session with ${utm ? JSON.stringify(utm) : 'no utm'}`, () => {
      history.replaceState(null, '', `${location.pathname}${query}`);
      makeSvc().use(autoTrack());
      const [start] = starts(capture.events);
      expect(start!.type).to.equal('session');
      expect(start!.data!.landingPage).to.equal(location.href);
      expect(start!.data!.utm).to.deep.equal(utm);
      expect(capture.events[0]!.name, 'before the first View Page').to.equal('Session start');
    });
  }

  it('once per session: later events, a reload and a second tab in the same session announce nothing', () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    svc.track({ eventTitle: 'Read', data: { a: 1 } });
    clock.tick(SESSION_TIMEOUT_MS - 1);
    svc.track({ eventTitle: 'Read', data: { a: 2 } });
    makeSvc().use(autoTrack()); // the same browser profile: a reload or another tab
    expect(starts(capture.events)).to.have.length(1);
  });

  it('a session begun by any event after 30 idle minutes is announced once, before that event', () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    const first = starts(capture.events)[0]!.sessionId;
    clock.tick(SESSION_TIMEOUT_MS);
    const before = capture.events.length;
    svc.track({ eventTitle: 'Back again', data: { a: 1 } });
    svc.track({ eventTitle: 'Still here', data: { a: 1 } });
    const after = capture.events.slice(before);
    expect(after.map((e) => e.name)).to.deep.equal(['Session start', 'Back again', 'Still here']);
    expect(after[0]!.sessionId).to.equal(after[1]!.sessionId);
    expect(after[0]!.sessionId).not.to.equal(first);
  });

  it('logOut starts a new session, announced with the next event', () => {
    const svc = makeSvc();
    svc.use(autoTrack());
    svc.logOut();
    svc.track({ eventTitle: 'Anonymous again', data: { a: 1 } });
    expect(starts(capture.events)).to.have.length(2);
  });

  it('opted out: no Session start and nothing stored for it', () => {
    const svc = makeSvc();
    svc.optOut();
    svc.use(autoTrack());
    expect(capture.events).to.deep.equal([]);
    expect(localStorage.getItem('svc.sessionAnnounced')).to.equal(null);
  });

  it('session: false announces nothing', () => {
    makeSvc().use(autoTrack({ session: false }));
    expect(starts(capture.events)).to.deep.equal([]);
    expect(capture.events.map((e) => e.name)).to.deep.equal(['View Page']);
  });
});
