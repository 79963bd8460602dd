// The README's snippet is the one the browser tests and the page-cost bench run (bundles/snippet.js), and
// its loader points at the package's current versioned path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync('README.md', 'utf8');
const lines = readFileSync('bundles/snippet.js', 'utf8').split('\n').filter((line) => line.startsWith('!function'));
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('the README snippet', () => {
  it('is bundles/snippet.js verbatim: the stub, then the loader, in one script', () => {
    assert.equal(lines.length, 2, 'bundles/snippet.js holds two lines of code');
    assert.ok(readme.includes(`<script>\n${lines[0]}\n${lines[1]}\n</script>`), 'the README shows the stub and the loader');
  });

  it(`loads /svc/${version}/service.js, the immutable path of this version`, () => {
    const links = [...readme.matchAll(/"https:\/\/[^"]*\/svc\/([^/"]+)\/service\.js"/g)].map((m) => m[1]);
    assert.ok(links.length > 0);
    for (const linked of links) assert.equal(linked, version);
  });
});
