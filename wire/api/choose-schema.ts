// The Choose API's request body and answer.
import Type from 'typebox';
import { FreeObject, Id, Omittable } from './schema-parts.js';

export const ChooseBody = Type.Object({
  identification: Type.Union([
    Type.Object({ sourceId: Id(), profileId: Id() }, { description: 'Form A: a profile of one of the project\'s sources (browsers).' }),
    Type.Object({ userId: Id() }, { description: 'Form B: a user id an identify linked (apiKey callers only).' }),
    Type.String({ description: 'Either object as a JSON string (a CORS simple request\'s text body may carry it so).' }),
  ]),
  names: Omittable(Type.Array(Type.String(), { description: 'Experience names, answered first and in this order.' })),
  groups: Omittable(Type.Array(Type.String(), { description: 'Every experience of these groups, in config order, after `names`.' })),
  device: Omittable(Type.Union([Type.Literal('mobile'), Type.Literal('desktop')])),
  sessionId: Omittable(Id('Needed by experiences sticky by session.')),
  url: Omittable(Type.String({ description: 'The page; targeting conditions see it as `url`.' })),
  force: Omittable(Type.Record(Type.String(), Type.String(), { description: 'QA overrides `{experience: variation}`: apiKey callers only.' })),
  deferExposure: Omittable(Type.Boolean({ description: 'The caller reports each exposure itself (`Experiment Viewed`): the answer records none.' })),
  productId: Omittable(Type.Union([Id(), Type.Integer()], { description: 'The product the page is about, for feed-backed experiences (a platform\'s numeric id too).' })),
});

export const ChoiceSchema = Type.Object({
  name: Type.String(),
  group: Type.Optional(Type.String({ description: 'The group it was asked through.' })),
  variation: Type.Optional(Type.String({ description: 'The variation served: experiments only.' })),
  body: FreeObject('The experience\'s content (the variation\'s, for an experiment).'),
}, { $id: 'Choice' });

export const ChooseAnswer = Type.Object({
  choices: Type.Array(ChoiceSchema, { description: 'In the order asked: names first, then the groups\' experiences.' }),
});
