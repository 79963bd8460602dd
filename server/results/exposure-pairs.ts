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
