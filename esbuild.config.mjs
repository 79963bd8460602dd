// Builds every artefact (the README's "Builds" table) with esbuild; `--if-missing` skips the build when all outputs exist
// (what `npm start` uses so a first run on a fresh clone builds and later runs start at once).
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { minify } from 'terser';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const outputs = ['dist/service.js', 'dist/chunks/manifest.json', 'dist/service-core.js', 'dist/svc-results.js', 'dist/svc-admin.js', 'dist/esm/index.js', 'dist/server.mjs', 'dist/sqlite-thread.mjs', 'dist/programs.mjs', 'dist/create-admin.mjs', 'dist/copy-to-postgres.mjs'];
if (process.argv.includes('--if-missing') && outputs.every((f) => existsSync(f))) process.exit(0);

// Production builds strip development diagnostics (Lit's DEV_MODE pattern): see src/dev-mode.ts.
const define = { SVC_DEV: 'false', SVC_VERSION: JSON.stringify(pkg.version) };
// esbuild does not look inside tagged templates, so the static css`…` of our *-styles.ts files would ship
// with their indentation; minify them as CSS (a styles file holds static CSS only, no `${}`).
const minifyCssTemplates = {
  name: 'minify-css-templates',
  setup(b) {
    b.onLoad({ filter: /-styles\.ts$/ }, async ({ path }) => {
      let source = readFileSync(path, 'utf8');
      for (const [whole, body] of [...source.matchAll(/css`([^`]*)`/g)]) {
        if (body.includes('${')) continue;
        const { code } = await transform(body, { loader: 'css', minify: true });
        source = source.replace(whole, `css\`${code.trim()}\``);
      }
      return { contents: source, loader: 'ts' };
    });
  },
};
const browser = {
  bundle: true, minify: true, sourcemap: true, target: 'es2022', define, legalComments: 'none', plugins: [minifyCssTemplates],
};
const pluginNames = existsSync('plugins')
  ? readdirSync('plugins', { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/index.ts`))
      .map((d) => d.name)
  : [];

await pageSdk();
await Promise.all([
  build({ ...browser, entryPoints: ['bundles/service-core.ts'], outfile: 'dist/service-core.js', format: 'iife' }),
  // <svc-results> for admin pages, with its own copy of Lit: outside service.js and its budget.
  build({ ...browser, entryPoints: ['bundles/results.ts'], outfile: 'dist/svc-results.js', format: 'iife' }),
  // The admin console (/admin/): its elements and <svc-results>, with their own copy of Lit.
  build({ ...browser, entryPoints: ['bundles/admin.ts'], outfile: 'dist/svc-admin.js', format: 'iife' }),
  build({
    ...browser,
    entryPoints: {
      index: 'src/index.ts',
      ...Object.fromEntries(pluginNames.map((n) => [`plugins/${n}/index`, `plugins/${n}/index.ts`])),
    },
    outdir: 'dist/esm',
    format: 'esm',
    splitting: true,
    minify: false,
    packages: 'external',
  }),
  build({
    // Loaded by URL next to server.mjs: the SQLite threads' entry, and the programs they serve (server/programs.ts).
    entryPoints: { server: 'server/main.ts', 'create-admin': 'server/create-admin.ts', 'copy-to-postgres': 'server/copy-to-postgres.ts', 'sqlite-thread': 'server/storage/sqlite/sqlite-thread.ts', programs: 'server/programs.ts' },
    outdir: 'dist',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    define: { SVC_VERSION: JSON.stringify(pkg.version) },
  }),
]);

// A second minification pass over the two IIFE bundles (service.js's chunks had theirs in pageSdk()): terser's
// compressor finds ≈3% more than esbuild's in this code.
await terse('dist/service-core.js');

// Precompressed copies of the script-tag bundles and chunks, which the service sends by Accept-Encoding
// (server/http/static-routes.ts): compressed once here at the highest levels rather than on every request.
for (const file of ['dist/service.js', 'dist/service-core.js', 'dist/svc-results.js', 'dist/svc-admin.js', ...chunkFiles()]) {
  const code = readFileSync(file);
  writeFileSync(`${file}.br`, brotliCompressSync(code, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: code.length },
  }));
  writeFileSync(`${file}.gz`, gzipSync(code, { level: 9 }));
}

// Type declarations for the ESM build (`exports` in package.json points at them), written afresh. No declaration
// maps: they would point at sources the package does not ship.
rmSync('dist/types', { recursive: true, force: true });
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
// The elements' manifest (dist/custom-elements.json, `customElements` in package.json), from their classes' JSDoc.
execFileSync(process.execPath, [
  'node_modules/@custom-elements-manifest/analyzer/cem.js', 'analyze', '--config', 'custom-elements-manifest.config.mjs', '--quiet',
], { stdio: 'inherit' });
console.log(`built ${outputs.join(', ')}, ${chunkFiles().length} chunks and dist/types (plugins: ${pluginNames.join(', ') || 'none'})`);

/** Minifies `file` again with terser, in place, keeping its source map chained; `module` for an ES module. */
async function terse(file, module = false) {
  const name = basename(file);
  const result = await minify(readFileSync(file, 'utf8'), {
    // keep_fargs: false drops unused trailing parameters; nothing here (nor in Lit) reads a function's `length`.
    // unsafe_arrows turns function expressions that use no `this` into arrows (mostly the IIFEs terser makes of
    // functions called once): nothing in these bundles calls a function expression with `new` or reads its prototype.
    compress: { passes: 3, keep_fargs: false, unsafe_arrows: true },
    mangle: true,
    module,
    ecma: 2020,
    format: { comments: false },
    // No `//# sourceMappingURL` comment: every visitor would fetch it (≈30 B a file, gzipped). The service names the
    // map in a `SourceMap` header instead (server/http/static-routes.ts); a self-hosted copy can do the same.
    sourceMap: { content: readFileSync(`${file}.map`, 'utf8'), filename: name },
  });
  writeFileSync(file, result.code);
  writeFileSync(`${file}.map`, String(result.map));
}

/** The chunks' files, from dist/chunks/. */
function chunkFiles() {
  return readdirSync('dist/chunks').filter((f) => f.endsWith('.js')).map((f) => `dist/chunks/${f}`);
}

/**
 * dist/service.js and its chunks. The chunks are ES modules (esbuild's code splitting: code two chunks share is one
 * more file, fetched in parallel with them) built from bundles/chunks/*.ts and the modules those import on demand (the
 * banner's languages). A chunk does not carry its own copy of what service.js already holds: every module of the core
 * that a chunk imports is borrowed from the core, through an object the core puts under a symbol named after its own
 * code (two copies of the same build on a page share it; two different builds never mix). service.js learns each
 * chunk's files from a manifest the build defines in it (SVC_CHUNKS), so that it fetches a chunk and its imports at once.
 */
async function pageSdk() {
  const core = { ...browser, entryPoints: ['bundles/service.ts'], format: 'iife' };
  // The core alone, to learn which modules it holds and to name its kit after its code.
  const probe = await build({ ...core, define: { ...define, SVC_CHUNKS: '{}' }, write: false, metafile: true, sourcemap: false });
  const coreModules = Object.keys(probe.metafile.inputs).sort();
  // Modules the core holds code of (an input whose every export was shaken off holds none).
  const [coreOutput] = Object.values(probe.metafile.outputs);
  const held = new Set(coreModules.filter((p) => coreOutput.inputs[p]?.bytesInOutput > 0));
  const kitKey = `svc.kit.${createHash('sha256').update(probe.outputFiles[0].contents).digest('hex').slice(0, 10)}`;
  const borrowed = new Set();
  const borrowFromCore = {
    name: 'borrow-from-core',
    setup(b) {
      b.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData?.inner) return undefined;
        const found = await b.resolve(args.path, { importer: args.importer, resolveDir: args.resolveDir, kind: args.kind, pluginData: { inner: true } });
        const path = relative(process.cwd(), found.path);
        if (found.errors.length > 0) return undefined;
        // The SDK's modules do nothing when imported (elements are defined by their plugin's factory): what a chunk
        // does not use of them stays out of it, and out of the chunks it shares with others.
        if (!held.has(path)) return { path: found.path, sideEffects: false };
        borrowed.add(path);
        return { path, namespace: 'core' };
      });
      b.onResolve({ filter: /^svc-borrow$/ }, () => ({ path: 'borrow', namespace: 'core' }));
      // Each name the core's module exports, read from the core's kit when the chunk runs; a pure call, so that the
      // names no chunk uses are shaken off (and the core need not keep them for it).
      b.onLoad({ filter: /.*/, namespace: 'core' }, async ({ path }) => {
        if (path === 'borrow') {
          return { contents: `export const borrow = (m, name) => globalThis[Symbol.for(${JSON.stringify(kitKey)})][m][name];`, loader: 'js' };
        }
        const m = coreModules.indexOf(path);
        const names = await exportNames(path);
        return {
          contents: `import { borrow } from 'svc-borrow';\n${names.map((n) => `export const ${n} = /* @__PURE__ */ borrow(${m}, ${JSON.stringify(n)});`).join('\n')}`,
          loader: 'js',
        };
      });
    },
  };
  rmSync('dist/chunks', { recursive: true, force: true });
  const chunks = await build({
    ...browser,
    plugins: [...browser.plugins, borrowFromCore],
    entryPoints: readdirSync('bundles/chunks').filter((f) => f.endsWith('.ts')).map((f) => `bundles/chunks/${f}`),
    outdir: 'dist/chunks',
    entryNames: '[name]-[hash]',
    chunkNames: 'shared-[hash]',
    format: 'esm',
    splitting: true,
    metafile: true,
  });
  const manifest = chunkManifest(chunks.metafile);
  // What the chunks borrow, read off their code: `borrow(<module>, "<name>")` calls (minified, under any name).
  const wanted = new Map([...borrowed].map((path) => [coreModules.indexOf(path), new Set()]));
  for (const file of chunkFiles()) {
    for (const [, m, name] of readFileSync(file, 'utf8').matchAll(/\((\d+),"([\w$]+)"\)/g)) wanted.get(Number(m))?.add(name);
  }
  const kit = [...wanted].filter(([, names]) => names.size > 0);
  await build({
    ...browser,
    format: 'iife',
    outfile: 'dist/service.js',
    define: { ...define, SVC_CHUNKS: JSON.stringify(manifest) },
    stdin: {
      // The kit first: a chunk fetched later finds the core's modules under the key.
      contents: `${kit.map(([m, names]) => `import { ${[...names].map((n) => `${n} as k${m}_${n}`).join(', ')} } from './${coreModules[m]}';`).join('\n')}
globalThis[Symbol.for(${JSON.stringify(kitKey)})] = { ${kit.map(([m, names]) => `${m}: { ${[...names].map((n) => `${n}: k${m}_${n}`).join(', ')} }`).join(', ')} };
import './bundles/service.ts';`,
      resolveDir: process.cwd(),
      sourcefile: 'service-entry.ts',
      loader: 'ts',
    },
  });
  await Promise.all([terse('dist/service.js'), ...chunkFiles().map((f) => terse(f, true))]);
  writeFileSync('dist/chunks/manifest.json', `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The names a module exports (its values; types are gone once compiled). */
async function exportNames(path) {
  const result = await build({ entryPoints: [path], write: false, metafile: true, format: 'esm', bundle: false });
  return Object.values(result.metafile.outputs)[0].exports;
}

/**
 * `{chunk: [its file, then the files it imports, transitively]}` from the chunk build's metafile, names without the
 * folder and `.js`. A chunk is named after its entry: bundles/chunks/experiences.ts is `experiences`, the banner's
 * plugins/consent-banner/texts/de.ts (a dynamic import of the consent chunk) is `texts-de`.
 */
function chunkManifest(metafile) {
  const short = (file) => basename(file, '.js');
  const manifest = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!output.entryPoint || !file.endsWith('.js')) continue;
    const entry = output.entryPoint;
    const name = entry.includes('/texts/') ? `texts-${basename(entry, '.ts')}` : basename(entry, '.ts');
    const files = [file];
    for (let i = 0; i < files.length; i++) {
      for (const imported of metafile.outputs[files[i]].imports) {
        if (imported.kind === 'import-statement' && !files.includes(imported.path)) files.push(imported.path);
      }
    }
    manifest[name] = files.map(short);
  }
  return manifest;
}
