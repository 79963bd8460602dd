// What dist/service.js fetches for a page, by the chunks the page needs at its first look (bundles/service.ts): the
// instances' own chunks (auto-track, a platform), the banner's language, and its elements' chunks, where two or three
// kinds of element come as one file, their combo (`experiences_recommendations`). Shared by the size bench, the
// budget test and the page-profile browser test.

/** The element chunks, in the loader's order (ELEMENT_CHUNKS in bundles/chunk-loader.ts), which names the combos. */
const ELEMENT_CHUNKS = ['experiences', 'recommendations', 'consent'];

/** The manifest's chunks a page fetches when it needs `chunks`, each element chunk at the first look. */
export function pageChunks(chunks: string[]): string[] {
  const elements = ELEMENT_CHUNKS.filter((chunk) => chunks.includes(chunk));
  const others = chunks.filter((chunk) => !ELEMENT_CHUNKS.includes(chunk));
  return elements.length > 1 ? [elements.join('_'), ...others] : chunks;
}
