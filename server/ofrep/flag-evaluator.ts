import type { ChooseAnswer, Choice } from '../../wire/choose.js';
import type { OfrepBulkAnswer, OfrepEvaluation, OfrepEvaluationSuccess } from '../../wire/api/ofrep-schema.js';
import type { AuthResult } from '../auth/authenticate.js';
import type { ProjectRef } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import type { ChooseService } from '../choose/choose-service.js';
import { exposureContext } from '../choose/exposure-context.js';
import type { ValidChooseRequest } from '../choose/validate-choose-request.js';
import { evaluationOf, flagsOf, type Flag } from './flag-evaluation.js';
import { OfrepError } from './ofrep-error.js';
import type { EvaluationInput } from './validate-evaluation-request.js';

const KEY_MISSING = 'context.targetingKey: is required (a profile id, or for an apiKey a user id)';
const SESSION_MISSING = 'context.sessionId: is required, the flag is sticky by session';

/** A bulk evaluation: the answer, and the text its entity tag is computed from (bulkTagText). */
export interface BulkEvaluation {
  answer: OfrepBulkAnswer;
  tagText: string;
}

/** What a request sends beside its body: the User-Agent, which exposures recorded now are broken down by. */
export interface RequestFacts {
  userAgent: string | undefined;
}

/**
 * OFREP's flags answered by the Choose API itself: a flag is an experience, and its value is what `ChooseService.answer`
 * serves the person the context names, with the same sticky first assignment and the same exposures. A writeKey's
 * evaluations record no exposure (the page reports `Experiment Viewed` when it shows a variant, as `<svc-experience>`
 * does); an apiKey's are exposures when answered, as its Choose requests are. Nothing here assigns: this file only
 * says which experiences to ask for, and reads the answer as flags (flag-evaluation.ts).
 * @example const evaluation = await new FlagEvaluator(choose).one(auth, 'hero-banner', input, { userAgent });
 */
export class FlagEvaluator {
  /** A project's flags, read once per configuration (a reload or a management write brings a new project object). */
  private readonly flags = new WeakMap<ProjectRef, readonly Flag[]>();

  constructor(private readonly choose: ChooseService) {}

  private flagsOf(project: ProjectRef): readonly Flag[] {
    let flags = this.flags.get(project);
    if (flags === undefined) {
      flags = flagsOf(project.config.experiences);
      this.flags.set(project, flags);
    }
    return flags;
  }

  /**
   * One flag: 404 `FLAG_NOT_FOUND` for a name that is no experience of the key's project; a disabled flag needs no
   * targeting key; then `TARGETING_KEY_MISSING`, and `INVALID_CONTEXT` for a session-sticky flag without `sessionId`
   * or an apiKey's user id nobody identified.
   * @throws OfrepError, or ServiceError as the Choose API answers (403 `source_not_allowed`, 503).
   */
  async one(auth: AuthResult, key: string, input: EvaluationInput, facts: RequestFacts): Promise<OfrepEvaluationSuccess> {
    const flag = this.flagsOf(auth.project).find((f) => f.key === key);
    if (flag === undefined) throw new OfrepError('FLAG_NOT_FOUND', `There is no flag ${quoted(key)}: no experience of the project has this name.`);
    if (!flag.live) return evaluationOf(flag, undefined);
    if (input.targetingKey === null) throw new OfrepError('TARGETING_KEY_MISSING', KEY_MISSING);
    if (flag.bySession && input.sessionId === undefined) throw new OfrepError('INVALID_CONTEXT', SESSION_MISSING);
    const choices = await this.chosen(auth, input, input.targetingKey, [key], facts);
    return evaluationOf(flag, choices.get(key));
  }

  /**
   * Every experience of the key's project, in config order, from one Choose request. Without a targeting key, each flag
   * that would need one fails alone (`TARGETING_KEY_MISSING`), so that the client keeps its defaults flag by flag; a
   * session-sticky flag without `sessionId` likewise (`INVALID_CONTEXT`).
   * @throws OfrepError `INVALID_CONTEXT` for an apiKey's user id nobody identified, or ServiceError as `one`.
   */
  async all(auth: AuthResult, input: EvaluationInput, facts: RequestFacts): Promise<BulkEvaluation> {
    const flags = this.flagsOf(auth.project);
    const failure = (flag: Flag): OfrepEvaluation | null => {
      if (!flag.live) return null;
      if (input.targetingKey === null) return { key: flag.key, errorCode: 'TARGETING_KEY_MISSING', errorDetails: KEY_MISSING };
      if (flag.bySession && input.sessionId === undefined) return { key: flag.key, errorCode: 'INVALID_CONTEXT', errorDetails: SESSION_MISSING };
      return null;
    };
    const asked = flags.filter((flag) => flag.live && failure(flag) === null).map((flag) => flag.key);
    // Without a targeting key every flag asked for would have failed above: nothing is left to ask.
    const choices = input.targetingKey === null || asked.length === 0
      ? new Map<string, Choice>()
      : await this.chosen(auth, input, input.targetingKey, asked, facts);
    const answer = { flags: flags.map((flag) => failure(flag) ?? evaluationOf(flag, choices.get(flag.key))) };
    return { answer, tagText: bulkTagText(answer, flags) };
  }

  /** The Choose API's choices for `names`, by name. */
  private async chosen(
    auth: AuthResult, input: EvaluationInput, targetingKey: string, names: string[], facts: RequestFacts,
  ): Promise<Map<string, Choice>> {
    let json: string;
    try {
      json = await this.choose.answer(auth, chooseRequest(auth, input, targetingKey, names, facts));
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'unknown_user') {
        throw new OfrepError('INVALID_CONTEXT', `context.targetingKey: no profile is linked to user ${quoted(targetingKey)} (an identify event links one)`);
      }
      throw error;
    }
    const { choices } = JSON.parse(json) as ChooseAnswer;
    return new Map(choices.map((choice) => [choice.name, choice]));
  }
}

/**
 * The text a bulk answer's entity tag is computed from: the answer without its feeds' `recommendationId`s. Each
 * evaluation issues a feed's answer anew, with a new id; the same products under another id are no change the client
 * needs, and the id its copy carries was recorded too, so what it reports of those products is still attributed.
 */
function bulkTagText(answer: OfrepBulkAnswer, flags: readonly Flag[]): string {
  if (!flags.some((flag) => flag.feed)) return JSON.stringify(answer);
  return JSON.stringify(answer.flags.map((evaluation, i) => {
    if (!flags[i]!.feed || !('value' in evaluation) || evaluation.value === undefined) return evaluation;
    const { recommendationId: _issued, ...value } = evaluation.value;
    return { ...evaluation, value };
  }));
}

/**
 * The Choose request an evaluation is: the person (a writeKey's targeting key is a profile of `sourceId`, default the
 * project's first source; an apiKey's a user id, or with `sourceId` a profile), the context's Choose fields, its other
 * fields as attributes, and for a writeKey no exposure now.
 */
export function chooseRequest(
  auth: AuthResult, input: EvaluationInput, targetingKey: string, names: string[], facts: RequestFacts,
): ValidChooseRequest {
  const asUser = auth.kind === 'apiKey' && input.sourceId === undefined;
  const request: ValidChooseRequest = {
    identification: asUser
      ? { form: 'user', userId: targetingKey }
      : { form: 'profile', sourceId: input.sourceId ?? auth.project.config.sources[0] ?? '', profileId: targetingKey },
    names,
  };
  // A browser shows a flag's value later, or never: it reports the exposure when it does.
  if (auth.kind !== 'apiKey') request.deferExposure = true;
  if (input.device !== undefined) request.device = input.device;
  if (input.sessionId !== undefined) request.sessionId = input.sessionId;
  if (input.url !== undefined) request.url = input.url;
  if (input.productId !== undefined) request.productId = input.productId;
  if (input.attributes !== undefined) request.attributes = input.attributes;
  const context = exposureContext(facts.userAgent, input.url);
  if (context !== null) request.context = context;
  return request;
}
