// An experience's lifecycle as the console offers it: which steps an experience can take from its status, the item
// each step writes, and what it means in a sentence the confirmation dialog says before anything changes.
import type { Experience, ExperienceItem } from './experience.js';
import { itemOf, kindOf } from './experience.js';

/** start: draft/stopped → running; stop: → stopped, nobody served; ship: → stopped, everyone gets `winner`. */
export type LifecycleAction = 'start' | 'stop' | 'ship';

export const ACTION_LABELS: Record<LifecycleAction, string> = { start: 'Start', stop: 'Stop', ship: 'Ship a winner' };

/** The steps `e` can take now, in the order the console offers them. */
export function actionsFor(e: Experience): LifecycleAction[] {
  const experiment = kindOf(e) === 'experiment';
  if (e.status === 'running') return experiment ? ['stop', 'ship'] : ['stop'];
  if (e.status === 'stopped') return experiment && !e.winner ? ['start', 'ship'] : ['start'];
  return ['start'];
}

/** The whole item to PUT for `action` (the experience as read, with its new status and winner). */
export function applyAction(e: Experience, action: LifecycleAction, winner?: string): ExperienceItem {
  const item = itemOf(e);
  delete item.winner; // allowed only while stopped, and only the ship step names one
  item.status = action === 'start' ? 'running' : 'stopped';
  if (action === 'ship') item.winner = winner;
  return item;
}

/** What `action` will do to `e`, said before it happens. */
export function consequence(e: Experience, action: LifecycleAction, winner?: string): string {
  const kind = kindOf(e);
  if (action === 'ship') {
    return `Everyone will get '${winner ?? '…'}'; no more exposures are recorded. The results stay readable.`;
  }
  if (action === 'stop') {
    return kind === 'experiment'
      ? `Nobody will get '${e.name}' any more and no more exposures are recorded. The results stay readable.`
      : `Nobody will get '${e.name}' any more.`;
  }
  if (kind === 'experiment') {
    const names = (e.variations ?? []).map((v) => `'${v.name}' ${v.weight}%`).join(', ');
    const split = `Visitors will be split between ${names} (${e.traffic ?? 100}% of traffic) and their exposures recorded`;
    // A restart ends the shipped state: everyone stops getting the winner, which is easy to miss.
    if (e.winner) return `'${e.name}' was shipped with '${e.winner}', which everyone gets now: starting it again drops that winner. ${split}, in a new phase.`;
    return e.status === 'stopped' ? `${split}, in a new phase.` : `${split}.`;
  }
  return kind === 'feed' ? `Visitors will get feed ${e.feed ?? ''} from now on.` : `Visitors will get its content from now on.`;
}
