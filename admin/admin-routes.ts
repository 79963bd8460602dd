// Every screen of the console has an address: the fragment of the console's URL (`#/experiences/hero/results?phase=2`),
// so that a reload keeps the screen, Back and Forward move between screens, and a result can be sent as a link. The
// fragment, not the path: the service serves the console as one file, and a fragment never reaches a server log.
import type { AdminView } from './admin-events.js';

const enc = encodeURIComponent;
/** A feed id as the service gives them: a whole number from 1. */
const FEED_ID = /^[1-9][0-9]{0,9}$/;
/** A UTC day, `2026-11-28`. */
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** The fragment of a screen, e.g. `#/experiences/hero/results?phase=2&dimension=device`. */
export function hashOf(view: AdminView): string {
  switch (view.name) {
    case 'experiences': return '#/experiences';
    case 'editor': return view.experience === null ? '#/experiences/new' : `#/experiences/${enc(view.experience)}/edit`;
    case 'results': {
      const query = new URLSearchParams();
      if (view.phase !== undefined) query.set('phase', String(view.phase));
      if (view.metric) query.set('metric', view.metric);
      if (view.dimension) query.set('dimension', view.dimension);
      const text = query.toString();
      return `#/experiences/${enc(view.experience)}/results${text ? `?${text}` : ''}`;
    }
    case 'plan': {
      const query = new URLSearchParams();
      if (view.metric) query.set('metric', view.metric);
      if (view.mde !== undefined) query.set('mde', String(view.mde));
      if (view.days !== undefined) query.set('days', String(view.days));
      const text = query.toString();
      return `#/experiences/${enc(view.experience)}/plan${text ? `?${text}` : ''}`;
    }
    case 'feeds': return '#/feeds';
    case 'feed-editor': return view.feed === null ? '#/feeds/new' : `#/feeds/${view.feed}/edit`;
    case 'feed-report': {
      const query = new URLSearchParams();
      if (view.from) query.set('from', view.from);
      if (view.to) query.set('to', view.to);
      const text = query.toString();
      return `#/feeds/${view.feed}/report${text ? `?${text}` : ''}`;
    }
    case 'metrics': return view.new ? '#/metrics/new' : '#/metrics';
    case 'access': return '#/access';
    case 'audit': return view.scope === 'organization' ? '#/audit?scope=organization' : '#/audit';
    case 'privacy': return '#/privacy';
    case 'webhooks': return '#/webhooks';
    case 'account': return '#/account';
    case 'invitation': return `#/invitation/${enc(view.token)}`;
  }
}

/** The screen a fragment names; the experience list for an empty or unknown one. */
export function viewOf(hash: string): AdminView {
  const [path = '', queryText = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  const query = new URLSearchParams(queryText);
  if (parts[0] === 'metrics' && parts.length === 1) return { name: 'metrics' };
  if (parts[0] === 'metrics' && parts[1] === 'new' && parts.length === 2) return { name: 'metrics', new: true };
  if (parts[0] === 'feeds' && parts.length === 1) return { name: 'feeds' };
  if (parts[0] === 'feeds' && parts[1] === 'new' && parts.length === 2) return { name: 'feed-editor', feed: null };
  if (parts[0] === 'feeds' && FEED_ID.test(parts[1] ?? '') && parts[2] === 'edit' && parts.length === 3) return { name: 'feed-editor', feed: Number(parts[1]) };
  if (parts[0] === 'feeds' && FEED_ID.test(parts[1] ?? '') && parts[2] === 'report' && parts.length === 3) {
    const from = query.get('from') ?? '';
    const to = query.get('to') ?? '';
    return { name: 'feed-report', feed: Number(parts[1]), ...(DAY.test(from) ? { from } : {}), ...(DAY.test(to) ? { to } : {}) };
  }
  if (parts[0] === 'access' && parts.length === 1) return { name: 'access' };
  if (parts[0] === 'audit' && parts.length === 1) {
    return query.get('scope') === 'organization' ? { name: 'audit', scope: 'organization' } : { name: 'audit' };
  }
  if (parts[0] === 'privacy' && parts.length === 1) return { name: 'privacy' };
  if (parts[0] === 'webhooks' && parts.length === 1) return { name: 'webhooks' };
  if (parts[0] === 'account' && parts.length === 1) return { name: 'account' };
  if (parts[0] === 'invitation' && parts[1] && parts.length === 2) return { name: 'invitation', token: parts[1] };
  if (parts[0] === 'experiences') {
    if (parts[1] === 'new' && parts.length === 2) return { name: 'editor', experience: null };
    const experience = parts[1];
    if (experience && parts[2] === 'edit' && parts.length === 3) return { name: 'editor', experience };
    if (experience && parts[2] === 'plan' && parts.length === 3) {
      const mde = Number(query.get('mde') ?? '');
      const days = Number(query.get('days') ?? '');
      return {
        name: 'plan', experience,
        ...(query.get('metric') ? { metric: query.get('metric') as string } : {}),
        ...(mde > 0 ? { mde } : {}),
        ...(Number.isInteger(days) && days >= 1 ? { days } : {}),
      };
    }
    if (experience && parts[2] === 'results' && parts.length === 3) {
      const asked = query.get('phase');
      const phase = asked === 'all' ? 'all' : Number(asked);
      return {
        name: 'results', experience,
        ...(phase === 'all' || (Number.isInteger(phase) && phase >= 1) ? { phase } : {}),
        ...(query.get('metric') ? { metric: query.get('metric') as string } : {}),
        ...(query.get('dimension') ? { dimension: query.get('dimension') as string } : {}),
      };
    }
  }
  return { name: 'experiences' };
}
