import type { Choice } from './choose-types.js';

// A config choice carries its JSON text itself, attached when it is compiled (frozenWithJson): the engine shares
// these frozen choices between requests (CompiledExperience.choices), so a returning visitor's 20 choices cost 20
// property reads, not 20 bodies stringified. Feed-backed choices are built per request and stringified once.
const JSON_TEXT = Symbol('choice JSON');

type WithJson = Choice & { readonly [JSON_TEXT]?: string };

function buildChoiceJson(c: Choice): string {
  // Joined, so the text is one flat string (+= would keep a tree of pieces, walked again by every answer's join).
  const parts = [`{"name":${JSON.stringify(c.name)}`];
  if (c.group !== undefined) parts.push(`,"group":${JSON.stringify(c.group)}`);
  if (c.variation !== undefined) parts.push(`,"variation":${JSON.stringify(c.variation)}`);
  parts.push(`,"body":${JSON.stringify(c.body)}}`);
  return parts.join('');
}

/**
 * Freezes a choice compiled from config with its JSON text attached (not enumerable: the choice still compares
 * and serialises as `{name, group?, variation?, body}`).
 * @example const choice = frozenWithJson({ name: 'hero', variation: 'bold', body: { title: 'Big sale' } });
 */
export function frozenWithJson(choice: Choice): Readonly<Choice> {
  Object.defineProperty(choice, JSON_TEXT, { value: buildChoiceJson(choice) });
  return Object.freeze(choice);
}

/**
 * The Choose API's answer `{choices:[{name, group?, variation?, body}]}` as JSON text, the same value
 * JSON.stringify gives. Built by hand because Fastify's default serialisation re-stringified the same 20
 * config bodies on every request; a response schema
 * (fast-json-stringify) would not help, as `body` is free-form and falls back to JSON.stringify.
 * @example reply.type('application/json; charset=utf-8').send(choicesJson(result.choices));
 */
export function choicesJson(choices: readonly Choice[]): string {
  // Joined rather than appended: join builds one flat string, where += builds a tree of 40 pieces that the socket
  // write then has to flatten.
  const parts = new Array<string>(choices.length);
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i] as WithJson;
    parts[i] = choice[JSON_TEXT] ?? buildChoiceJson(choice);
  }
  return `{"choices":[${parts.join(',')}]}`;
}
