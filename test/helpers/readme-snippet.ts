/**
 * The README's snippet's two lines (the stub, then the loader's function), read from the README itself (the dev server
 * reformats .js files; a node test checks that the README shows bundles/snippet.js verbatim). The loader's address and
 * keys are the README's example: `loader()` swaps them.
 */
export async function snippet(): Promise<{ stub: string; loaderFn: string }> {
  const readme = await (await fetch('/README.md')).text();
  const [stub = '', loader = ''] = readme.split('\n').filter((l) => l.startsWith('!function'));
  return { stub, loaderFn: loader.slice(0, loader.indexOf('}(document,') + 1) };
}

/** The loader line with this page's address of the SDK and the given keys, as a site owner edits it. */
export function loader(loaderFn: string, src: string, config: Record<string, string>): string {
  return `${loaderFn}(document,${JSON.stringify(src)},${JSON.stringify(config)});`;
}
