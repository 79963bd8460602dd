/**
 * The experiment pairs of an exposure row's choices (`[["experience","variation"],…]`, as the Choose API writes them):
 * experience → variation, for the pairs with a variation (the others are personalizations and feeds, no exposure to
 * results); an experience named twice keeps its first pair with a variation, as migration 16's backfill does.
 * @example experimentPairs('[["hero","bold"],["banner",null]]') // → Map { 'hero' => 'bold' }
 */
export function experimentPairs(choices: string): Map<string, string> {
  const pairs = new Map<string, string>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(choices);
  } catch {
    return pairs;
  }
  if (!Array.isArray(parsed)) return pairs;
  for (const pair of parsed) {
    if (!Array.isArray(pair)) continue;
    const [experience, variation] = pair as unknown[];
    if (typeof experience === 'string' && typeof variation === 'string' && !pairs.has(experience)) pairs.set(experience, variation);
  }
  return pairs;
}

/**
 * The variation an exposure row's choices give `experience`, or undefined (absent, or served without a variation):
 * the pair is found as text (`["<name>",`) and only its variation parsed, the row's many other pairs never are; a
 * name that does not parse so (a `]` in a variation) takes the whole array's parse.
 * @example variationOf('[["hero","bold"],["banner",null]]', 'hero') // → 'bold'
 */
export function variationOf(choices: string, experience: string): string | undefined {
  const needle = `[${JSON.stringify(experience)},`;
  const at = choices.indexOf(needle);
  if (at < 0) return undefined;
  const start = at + needle.length;
  try {
    const variation = JSON.parse(choices.slice(start, choices.indexOf(']', start))) as unknown;
    if (typeof variation === 'string') return variation;
  } catch {
    // A `]` inside the variation: the whole array below.
  }
  return experimentPairs(choices).get(experience);
}

/** `["<name>","` : a pair whose variation is a string (a null one, `["<name>",null]`, is not an exposure). */
const EXPERIMENT_PAIR = /\["((?:[^"\\]|\\.)*)","/g;

/**
 * The experiments an exposure row's choices name with a variation, as experimentPairs' keys, found as text: the
 * indexer's hot loop, where parsing every pair cost three times as much. A name may come twice (no Choose answer has
 * one twice); its reader counts a row once.
 * @example experimentNames('[["hero","bold"],["banner",null]]') // → ['hero']
 */
export function experimentNames(choices: string): string[] {
  const names: string[] = [];
  EXPERIMENT_PAIR.lastIndex = 0;
  for (let m = EXPERIMENT_PAIR.exec(choices); m !== null; m = EXPERIMENT_PAIR.exec(choices)) {
    const raw = m[1]!;
    names.push(raw.includes('\\') ? JSON.parse(`"${raw}"`) as string : raw);
  }
  return names;
}
