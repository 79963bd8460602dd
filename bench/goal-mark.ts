// How every bench marks a goal it states: ✓ when its figure meets the goal, ✗ when it misses it, then the goal itself
// (`✓ ≥ 0.7`), in a table's goal column or after the figure in prose, so that a run reads alike in every bench.

/** `✓ <goal>` when `met`, else `✗ <goal>`. */
export function goalMark(met: boolean, goal: string): string {
  return `${met ? '✓' : '✗'} ${goal}`;
}
