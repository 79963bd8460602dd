// The Choose API's answer, `{"choices": [...]}`: what the server sends and the browser SDK renders.

/** One element of the answer's `choices`: a resolved experience. */
export interface Choice {
  name: string;
  /** The group it was asked through, when it was asked by group. */
  group?: string;
  /** The variation served: experiments only (personalization and feeds have none). */
  variation?: string;
  /** The experience's content (the variation's, for an experiment); the server's config object: never mutated. */
  body: Readonly<Record<string, unknown>>;
}

/** The Choose API's answer: the choices in the order asked (names first, then groups' experiences). */
export interface ChooseAnswer {
  choices: Choice[];
}
