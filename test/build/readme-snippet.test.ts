// The README's snippet is the one the browser tests run (bundles/snippet.js), and its script tag links the
// package's current versioned path.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const readme = readFileSync('README.md', 'utf8');
const stub = readFileSync('bundles/snippet.js', 'utf8').split('\n').filter((line) => line.startsWith('!function'));
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('the README snippet', () => {
  it('is bundles/snippet.js verbatim', () => {
    assert.equal(stub.length, 1, 'bundles/snippet.js holds one line of code');
    assert.ok(readme.includes(`<script>\n${stub[0]}\n</script>\n<script async src=`), 'the README shows the stub, then an async script tag');
  });

  it(`links /svc/${version}/service.js, the immutable path of this version`, () => {
    const links = [...readme.matchAll(/<script async src="[^"]*\/svc\/([^/"]+)\/service\.js"/g)].map((m) => m[1]);
    assert.ok(links.length > 0);
    for (const linked of links) assert.equal(linked, version);
  });
});
