// dist/custom-elements.json, which `npm run build` generates from the elements' JSDoc: every element the plugins
// define is in it, with the slots, parts, custom properties and events its source uses.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = resolve(import.meta.dirname, '..', '..');
const MANIFEST = join(ROOT, 'dist', 'custom-elements.json');

interface Named {
  name: string;
}
interface ElementDoc {
  kind: string;
  name: string;
  tagName?: string;
  customElement?: boolean;
  summary?: string;
  attributes?: (Named & { fieldName?: string })[];
  slots?: Named[];
  cssParts?: Named[];
  cssProperties?: (Named & { default?: string })[];
  events?: Named[];
}
interface Manifest {
  modules: { path: string; declarations?: ElementDoc[] }[];
}

/** `tag → class name` of every `defineElement('tag', Class)` in a plugin's entry point. */
function definedElements(): Map<string, string> {
  const defined = new Map<string, string>();
  for (const plugin of readdirSync(join(ROOT, 'plugins'))) {
    const entry = join(ROOT, 'plugins', plugin, 'index.ts');
    if (!existsSync(entry)) continue;
    for (const m of readFileSync(entry, 'utf8').matchAll(/defineElement\(\s*'([a-z0-9-]+)'\s*,\s*(\w+)/g)) defined.set(m[1]!, m[2]!);
  }
  return defined;
}

function manifest(): Manifest {
  assert.ok(existsSync(MANIFEST), `${MANIFEST} is missing: run npm run build`);
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
}

/** The manifest's element of `tag`, with the module (source file) it was read from. */
function element(tag: string): { path: string; doc: ElementDoc } {
  for (const mod of manifest().modules) {
    const doc = mod.declarations?.find((d) => d.customElement && d.tagName === tag);
    if (doc) return { path: mod.path, doc };
  }
  assert.fail(`<${tag}> is not in custom-elements.json`);
}

const names = (list: Named[] | undefined): string[] => (list ?? []).map((x) => x.name);

/** A source file without its comments, so that only code and templates count. */
function code(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/**
 * Per element, names read from its source: the template's `<slot>`s and parts (`part="…"` in a Lit template, `part: '…'`
 * in an h() call), the `--svc-*` properties of its styles, the events it dispatches or has the SDK dispatch. The manifest
 * must list at least these.
 */
const expected: {
  tag: string;
  path: string;
  attributes: string[];
  slots: string[];
  parts: string[];
  cssProperties: string[];
  events: string[];
}[] = [
  {
    tag: 'svc-experience',
    path: 'plugins/experiences/experience-element.ts',
    attributes: ['name', 'timeout', 'status'],
    slots: ['', 'content'],
    parts: [],
    cssProperties: ['--svc-experience-display'],
    events: ['svc:experience'],
  },
  {
    tag: 'svc-recommendations',
    path: 'plugins/recommendations/recommendations-element.ts',
    attributes: ['feed', 'limit', 'fields', 'product-id', 'lazy', 'status'],
    slots: ['', 'loading', 'empty', 'error'],
    parts: ['list', 'item', 'link', 'image', 'title', 'price'],
    cssProperties: ['--svc-recommendations-gap', '--svc-recommendations-border', '--svc-recommendations-radius'],
    events: ['svc:product', 'svc:event'],
  },
  {
    tag: 'svc-consent',
    path: 'plugins/consent-banner/consent-element.ts',
    attributes: ['open', 'status', 'title', 'message', 'accept-label', 'reject-label', 'customize-label', 'save-label', 'valid-days'],
    slots: ['title', 'message', 'privacy'],
    parts: ['banner', 'title', 'message', 'categories', 'category', 'actions', 'button', 'accept', 'reject', 'customize', 'save'],
    cssProperties: ['--svc-consent-background', '--svc-consent-button-background', '--svc-consent-focus-outline'],
    events: ['svc:consent', 'svc:consent-change', 'svc:event'],
  },
  {
    // Light DOM, no shadow root: nothing to slot and no shadow part; it only calls the banner's show().
    tag: 'svc-consent-button',
    path: 'plugins/consent-banner/consent-button-element.ts',
    attributes: [],
    slots: [],
    parts: [],
    cssProperties: [],
    events: [],
  },
  {
    tag: 'svc-results',
    path: 'plugins/results/results-element.ts',
    attributes: ['experience', 'organization', 'project', 'api', 'metrics', 'dimension', 'status'],
    slots: [],
    parts: ['header', 'title', 'summary', 'banner', 'section', 'metric', 'table-scroll', 'table', 'chart', 'state'],
    cssProperties: ['--svc-results-color', '--svc-results-positive', '--svc-results-negative', '--svc-results-min-height'],
    events: ['svc:results', 'svc:results-error', 'svc:results-view'],
  },
];

describe('custom-elements.json', () => {
  it('reads the define calls: the plugins define the elements this test knows', () => {
    assert.deepEqual([...definedElements().keys()].sort(), expected.map((e) => e.tag).sort());
  });

  it('lists every element the plugins define, under its tag, from the file of its class', () => {
    for (const [tag, className] of definedElements()) {
      const { path, doc } = element(tag);
      assert.equal(doc.name, className, `<${tag}>`);
      assert.match(code(path), new RegExp(`export class ${className}\\b`), `<${tag}> read from ${path}`);
      assert.ok(doc.summary, `<${tag}> has a summary`);
    }
  });

  for (const e of expected) {
    describe(`<${e.tag}>`, () => {
      it('is read from its element file', () => {
        assert.equal(element(e.tag).path, e.path);
      });

      it('lists its attributes, the reflected status among them for a Lit element', () => {
        const attributes = names(element(e.tag).doc.attributes);
        for (const name of e.attributes) assert.ok(attributes.includes(name), `attribute ${name} in ${JSON.stringify(attributes)}`);
      });

      it('lists the slots its template renders, the default slot as ""', () => {
        assert.deepEqual(names(element(e.tag).doc.slots).sort(), [...e.slots].sort());
        // A Lit template's <slot name="…">, or h('slot', { name: '…' }) of an element built on SvcElement.
        for (const m of code(e.path).matchAll(/<slot(?:\s+name="([^"]*)")?>|h\('slot'(?:, \{ name: '([^']*)' \})?/g)) {
          const name = m[1] ?? m[2] ?? '';
          assert.ok(e.slots.includes(name), `<slot name="${name}"> of ${e.path}`);
        }
      });

      // Parts as a Lit template declares them (part="…") or as h() does ({ part: '…' }).
      it('lists the parts its templates declare, and no part they do not', () => {
        const parts = names(element(e.tag).doc.cssParts);
        for (const name of e.parts) assert.ok(parts.includes(name), `part ${name} in ${JSON.stringify(parts)}`);
        const folder = e.path.slice(0, e.path.lastIndexOf('/'));
        const declared = new Set(readdirSync(join(ROOT, folder))
          .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
          .flatMap((f) => [...code(`${folder}/${f}`).matchAll(/\bpart(?:="([^"]+)"|: '([^']+)')/g)].flatMap((m) => (m[1] ?? m[2]!).split(/\s+/))));
        for (const name of parts) assert.ok(declared.has(name), `part ${name} is declared in ${folder}`);
      });

      it('lists exactly the custom properties of its styles', () => {
        const properties = names(element(e.tag).doc.cssProperties).sort();
        for (const name of e.cssProperties) assert.ok(properties.includes(name), `${name} in ${JSON.stringify(properties)}`);
        const styles = /from '\.\/([\w-]+-styles)\.js'/.exec(code(e.path))?.[1];
        const used = styles
          ? [...new Set([...code(`${e.path.slice(0, e.path.lastIndexOf('/'))}/${styles}.ts`).matchAll(/var\((--svc-[\w-]+)/g)].map((m) => m[1]!))].sort()
          : [];
        assert.deepEqual(properties, used);
      });

      it('lists the events it dispatches and those the SDK dispatches for it', () => {
        const events = names(element(e.tag).doc.events);
        assert.deepEqual([...events].sort(), [...e.events].sort());
        for (const call of code(e.path).matchAll(/dispatchEvent\(([^;]*)/g)) {
          for (const m of call[1]!.matchAll(/'(svc:[\w-]+)'/g)) assert.ok(events.includes(m[1]!), `${m[1]} dispatched in ${e.path}`);
        }
      });
    });
  }

  it('gives Lit state properties no attribute', () => {
    const attributes = (tag: string): string[] => names(element(tag).doc.attributes);
    assert.ok(!attributes('svc-consent').some((a) => a === 'customizing' || a === 'choices'));
    assert.ok(!attributes('svc-recommendations').includes('products'));
  });
});

describe('package.json', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    customElements?: string;
    typesVersions?: Record<string, Record<string, string[]>>;
  };

  it('points tools at the manifest through `customElements`', () => {
    assert.equal(pkg.customElements, 'dist/custom-elements.json');
    assert.ok(existsSync(join(ROOT, pkg.customElements)));
  });

  it('maps svc-sdk/plugins/* to the plugins\' declarations for TypeScript without `exports` (node10)', () => {
    assert.deepEqual(pkg.typesVersions?.['*']?.['plugins/*'], ['./dist/types/plugins/*/index.d.ts']);
  });
});
