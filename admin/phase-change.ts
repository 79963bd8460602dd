// What the console says before saving a running experiment whose split or audience changes: such a save starts a new
// phase, whose results count only the people who first see the experiment from then on (the service decides the
// same way; this is its rule as the console reads it, to say so before anything is written).
import { html, type TemplateResult } from 'lit';
import type { ExperienceItem } from './experience.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * What changes between two versions of a running experiment that starts a phase: the variations, the allocation (fixed
 * or bandit), a fixed split's weights, traffic, targeting. A bandit's weights are its own to move: no phase.
 */
export function phaseChangesOf(before: ExperienceItem, after: ExperienceItem): string[] {
  const changes: string[] = [];
  const weights = (e: ExperienceItem): string => (e.variations ?? []).map((v) => `${v.name} ${v.weight}%`).join(' / ');
  const names = (e: ExperienceItem): string => (e.variations ?? []).map((v) => v.name).join(' / ');
  const allocation = (e: ExperienceItem): string => e.allocation ?? 'fixed';
  const bandits = allocation(before) === 'bandit' && allocation(after) === 'bandit';
  if (names(before) !== names(after) || (!bandits && allocation(before) === allocation(after) && weights(before) !== weights(after))) {
    changes.push(`the split (${weights(before)} → ${weights(after)})`);
  } else if (allocation(before) !== allocation(after)) changes.push(`the allocation (${allocation(before)} → ${allocation(after)})`);
  if ((before.traffic ?? 100) !== (after.traffic ?? 100)) changes.push(`the traffic (${before.traffic ?? 100}% → ${after.traffic ?? 100}%)`);
  if (!same(before.condition, after.condition) || !same(before.devices, after.devices) || !same(before.namespace, after.namespace)) {
    changes.push('who gets it (targeting)');
  }
  return changes;
}

/** What a save that starts a new phase will do, said next to Save before it is pressed. */
export function phaseNotice(name: string, changes: readonly string[]): string {
  return `'${name}' is running, and this save changes ${changes.join(', ')}. The new phase's results count only the `
    + 'people who first see it from now on, checked against the new weights, so no false sample-ratio alarm follows. '
    + 'Earlier phases stay readable on the results page.';
}

/** The notice beside Save, with the choice of keeping everybody's assignment (the default) or re-randomising. */
export function phaseNoticeView(
  name: string, changes: readonly string[], rerandomize: boolean, choose: (rerandomize: boolean) => void,
): TemplateResult {
  return html`<div class="alert warning phase-notice" role="status"><strong>Saving starts a new phase</strong>
    ${phaseNotice(name, changes)}
    <fieldset class="assignments"><legend>Assignments</legend>
      <label class="choice"><input type="radio" name="assignments" value="keep" .checked=${!rerandomize} @change=${() => choose(false)}>
        <span>Keep them <span class="muted">(default: nobody already in the experiment moves)</span></span></label>
      <label class="choice"><input type="radio" name="assignments" value="rerandomize" .checked=${rerandomize} @change=${() => choose(true)}>
        <span>Re-randomise <span class="muted">(everybody is assigned afresh, with a new seed)</span></span></label>
    </fieldset></div>`;
}
