import type { Choice } from './choose-types.js';

// Bodies come from the config and are shared by every answer naming their variation, so each is stringified
// once (a reload brings new objects; the old entries go with them). Feed-backed bodies are built per request
// and pass through once.
const bodies = new WeakMap<object, string>();

function bodyJson(body: Readonly<Record<string, unknown>>): string {
  let json = bodies.get(body);
  if (json === undefined) {
    json = JSON.stringify(body);
    bodies.set(body, json);
  }
  return json;
}

// A choice's JSON, for the frozen choices the engine shares between requests (compiled per config: see
// CompiledExperience.choices): a returning visitor's 20 choices then cost 20 lookups, not 20 objects stringified.
const frozenChoices = new WeakMap<object, string>();

function buildChoiceJson(c: Choice): string {
  let json = `{"name":${JSON.stringify(c.name)}`;
  if (c.group !== undefined) json += `,"group":${JSON.stringify(c.group)}`;
  if (c.variation !== undefined) json += `,"variation":${JSON.stringify(c.variation)}`;
  return `${json},"body":${bodyJson(c.body)}}`;
}

function choiceJson(c: Choice): string {
  if (!Object.isFrozen(c)) return buildChoiceJson(c);
  let json = frozenChoices.get(c);
  if (json === undefined) {
    json = buildChoiceJson(c);
    frozenChoices.set(c, json);
  }
  return json;
}

/**
 * The Choose API's answer `{choices:[{name, group?, variation?, body}]}` as JSON text, the same value
 * JSON.stringify gives. Built by hand because Fastify's default serialisation re-stringified the same 20
 * config bodies on every request (≈6 % of the service's CPU under the bench); a response schema
 * (fast-json-stringify) would not help, as `body` is free-form and falls back to JSON.stringify.
 * @example reply.type('application/json; charset=utf-8').send(choicesJson(result.choices));
 */
export function choicesJson(choices: readonly Choice[]): string {
  let json = '{"choices":[';
  for (let i = 0; i < choices.length; i++) {
    if (i > 0) json += ',';
    json += choiceJson(choices[i] as Choice);
  }
  return `${json}]}`;
}
