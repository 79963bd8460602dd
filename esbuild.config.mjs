// Builds every artefact (the README's "Builds" table) with esbuild; `--if-missing` skips the build when all outputs exist
// (what `npm start` uses so a first run on a fresh clone builds and later runs start at once).
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { minify } from 'terser';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const outputs = ['dist/service.js', 'dist/chunks/manifest.json', 'dist/service-core.js', 'dist/svc-results.js', 'dist/svc-admin.js', 'dist/esm/index.js', 'dist/server.mjs', 'dist/sqlite-thread.mjs', 'dist/programs.mjs', 'dist/create-admin.mjs', 'dist/copy-to-postgres.mjs'];
if (process.argv.includes('--if-missing') && outputs.every((f) => existsSync(f))) process.exit(0);

const pluginNames = existsSync('plugins')
  ? readdirSync('plugins', { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/index.ts`))
      .map((d) => d.name)
  : [];
/**
 * The platform plugins, `{flag: folder}`: a plugin registers itself as a shop integration with a platform.json in its
 * folder, `{"flag": "platformA"}`. Its index.ts becomes a chunk of service.js named after the folder, fetched when an
 * instance's config has the flag true, and the factory it exports under the flag's name is installed
 * (bundles/platforms.ts). Nothing else names a platform: adding one is adding its folder.
 */
const platforms = {};
for (const name of pluginNames.filter((n) => existsSync(`plugins/${n}/platform.json`))) {
  const { flag } = JSON.parse(readFileSync(`plugins/${name}/platform.json`, 'utf8'));
  if (typeof flag !== 'string' || !/^platform[A-Z0-9]\w*$/.test(flag)) throw new Error(`plugins/${name}/platform.json: "flag" must be a config name like "platformC", not ${JSON.stringify(flag)}`);
  if (platforms[flag]) throw new Error(`plugins/${name}/platform.json: flag ${flag} is plugins/${platforms[flag]}'s already`);
  if (!(await exportNames(`plugins/${name}/index.ts`)).includes(flag)) throw new Error(`plugins/${name}/index.ts exports no factory named ${flag}`);
  platforms[flag] = name;
}

// Production builds strip development diagnostics (Lit's DEV_MODE pattern): see src/dev-mode.ts. SVC_PLATFORMS: the
// platform plugins, for bundles/platforms.ts.
const define = { SVC_DEV: 'false', SVC_VERSION: JSON.stringify(pkg.version), SVC_PLATFORMS: JSON.stringify(platforms) };
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

/** The element chunks, in the order of ELEMENT_CHUNKS in bundles/chunk-loader.ts (a combo is named in that order). */
const ELEMENT_CHUNKS = ['experiences', 'recommendations', 'consent'];
/**
 * The chunks whose code goes with the elements' when `common` is chosen: the requests chunk carries what the element
 * chunks do (src/requests.ts), which `common`, fetched with every chunk (auto-tracking too), should not.
 */
const ELEMENT_SIDE = [...ELEMENT_CHUNKS, 'requests'];
/** Where the page's chunks are built, before the build names their folder after them. */
const OUT = 'dist/chunks/next';

await pageSdk();
// `--page-sdk`: dist/service.js and its chunks only (test/build/platform-plugin.test.ts builds a copy with a platform added).
if (process.argv.includes('--page-sdk')) process.exit(0);
// The ESM build's shared chunks are named by their content: last build's would stay beside this one's.
rmSync('dist/esm', { recursive: true, force: true });
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
    // pure_getters: reading a property has no side effect (no code here reads one for its effect, a reflow say).
    // hoist_funs: function declarations first in their scope, where they are hoisted to anyway. unsafe, in the
    // classic scripts only (the core): `new Error()` becomes `Error()`, templates concatenations, and `String(x)`
    // `x + ""`, which differ only for a symbol or an object with its own valueOf; the core's String() calls take a
    // boolean or a validated feed id. The chunks' take what a platform's page hands them: they keep theirs.
    compress: { passes: 3, keep_fargs: false, unsafe_arrows: true, pure_getters: true, hoist_funs: true, unsafe: !module },
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

/** The chunks' files, from dist/chunks/ (or `dir`). */
function chunkFiles(dir = 'dist/chunks') {
  return readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => `${dir}/${f}`);
}

/**
 * dist/service.js and its chunks, ES modules in dist/chunks/ that service.js fetches when the page uses them: a chunk
 * for each element kind, integration and auto-tracking (bundles/chunks/*.ts), one for each of the banner's languages
 * (the banner imports its texts on demand), and a combo for each combination of two or three element chunks, which a
 * page that has several kinds of element at its first look fetches instead of their chunks (one file gzips ≈1 KB
 * smaller than three). What chunks share is in one more file, `common`: the modules that an element's chunk and
 * another (auto-tracking, a platform) both use, if any, and every name a chunk borrows of service.js's own modules;
 * what element chunks alone share (SvcElement, h()…) is in each of them, where it gzips best. A chunk carries no copy of the core: `common` reads those names from an object the core puts under a symbol
 * named after its own code (two copies of the same build on a page share it; two different builds never mix).
 * service.js learns each chunk's files from a manifest the build defines in it (SVC_CHUNKS), so that it fetches a
 * chunk and its imports at once. The chunks are built without esbuild's code splitting, which would share a combo's
 * code out again into files of their own; `common` is imported under short names this build picks.
 */
async function pageSdk() {
  // In the core, the Choose and feed requests are stubs that use the code the element chunks bring
  // (bundles/lazy-requests.ts).
  const lazyRequests = {
    name: 'lazy-requests',
    setup(b) {
      b.onResolve({ filter: /^\.\/requests\.js$/ }, ({ importer }) => (
        importer.endsWith('src/service-js.ts') ? { path: `${process.cwd()}/bundles/lazy-requests.ts` } : undefined
      ));
    },
  };
  const core = { ...browser, plugins: [...browser.plugins, lazyRequests], entryPoints: ['bundles/service.ts'], format: 'iife' };
  // The core alone, to learn which modules it holds and to name its kit after its code.
  const probe = await build({ ...core, define: { ...define, SVC_CHUNKS: '{}' }, write: false, metafile: true, sourcemap: false });
  const coreModules = Object.keys(probe.metafile.inputs).sort();
  // Modules the core holds code of (an input whose every export was shaken off holds none).
  const [coreOutput] = Object.values(probe.metafile.outputs);
  const held = new Set(coreModules.filter((p) => coreOutput.inputs[p]?.bytesInOutput > 0));
  const kitKey = `svc.kit.${createHash('sha256').update(probe.outputFiles[0].contents).digest('hex').slice(0, 10)}`;
  const borrowed = new Set();
  /** Once the names chunks borrow are known: each one's place in the kit, a list (`<module> <name>` → index). */
  let kitSlots;
  const texts = readdirSync('plugins/consent-banner/texts').filter((f) => f.endsWith('.ts'))
    .map((f) => [`texts-${basename(f, '.ts')}`, `plugins/consent-banner/texts/${f}`]);
  /**
   * How a build links its modules: the core's are borrowed from the kit, inside `common` (and while finding what it
   * holds); in a chunk, the core's and common's modules are imports of the common file (`common.names`: its short
   * names; before they are known, each name is a pure call that shows in the output when used). `languages` names the
   * banner's text files a chunk imports.
   */
  const linking = (common, languages) => ({
    name: 'link-chunks',
    setup(b) {
      b.onResolve({ filter: /^\./ }, async (args) => {
        if (args.pluginData?.inner) return undefined;
        const found = await b.resolve(args.path, { importer: args.importer, resolveDir: args.resolveDir, kind: args.kind, pluginData: { inner: true } });
        const path = relative(process.cwd(), found.path);
        if (found.errors.length > 0) return undefined;
        const language = languages && /^plugins\/consent-banner\/texts\/(\w+)\.ts$/.exec(path)?.[1];
        if (language) return { path: `./texts-${language}.js`, external: true };
        if (common?.modules.includes(path)) return { path, namespace: 'common' };
        if (held.has(path)) {
          borrowed.add(path);
          return { path, namespace: 'core' };
        }
        // The SDK's modules do nothing when imported (elements are defined by their plugin's factory): what a chunk
        // does not use of them stays out of it.
        return { path: found.path, sideEffects: false };
      });
      b.onResolve({ filter: /^svc-borrow$/ }, () => ({ path: 'borrow', namespace: 'core' }));
      // The common file does nothing when imported (sideEffects: false): esbuild then drops a module's import of it
      // when the chunk uses none of its names, where it would keep an empty `import{}from"./common.js"`.
      b.onResolve({ filter: /^svc-common$/ }, () => (common.names ? { path: './common.js', external: true, sideEffects: false } : { path: 'use', namespace: 'common' }));
      // Each name the core's module exports, read from the core's kit when the chunk runs; a pure call, so that the
      // names no chunk uses are shaken off (and the core need not keep them for it).
      b.onLoad({ filter: /.*/, namespace: 'core' }, async ({ path }) => {
        if (path === 'borrow') {
          const kit = `globalThis[Symbol.for(${JSON.stringify(kitKey)})]`;
          return { contents: kitSlots ? `export const borrow = (i) => ${kit}[i];` : `export const borrow = (m, name) => ${kit}[m][name];`, loader: 'js' };
        }
        const m = coreModules.indexOf(path);
        const names = await exportNames(path);
        return {
          contents: `import { borrow } from 'svc-borrow';\n${names.map((n) => `export const ${n} = /* @__PURE__ */ borrow(${kitSlots ? kitSlots.get(`${m} ${n}`) ?? -1 : `${m}, ${JSON.stringify(n)}`});`).join('\n')}`,
          loader: 'js',
        };
      });
      b.onLoad({ filter: /.*/, namespace: 'common' }, async ({ path }) => {
        if (path === 'use') return { contents: 'export const use = (m, name) => [m, name];', loader: 'js' };
        const m = common.modules.indexOf(path);
        if (common.names) {
          const names = [...common.names].filter(([, [module]]) => module === m);
          return { contents: `export { ${names.map(([alias, [, n]]) => `${alias} as ${n}`).join(', ')} } from 'svc-common';`, loader: 'js' };
        }
        const names = await exportNames(path);
        return {
          contents: `import { use } from 'svc-common';\n${names.map((n) => `export const ${n} = /* @__PURE__ */ use("common${m}", ${JSON.stringify(n)});`).join('\n')}`,
          loader: 'js',
        };
      });
      // A combo: the default export of each of its element chunks, under the chunk's name.
      b.onResolve({ filter: /^combo:/ }, ({ path }) => ({ path: path.slice(6), namespace: 'combo' }));
      b.onLoad({ filter: /.*/, namespace: 'combo' }, ({ path }) => ({
        contents: path.split('_').map((n) => `export { default as ${n} } from './bundles/chunks/${n}.ts';\nexport * from './bundles/chunks/${n}.ts';`).join('\n'),
        resolveDir: process.cwd(),
        loader: 'js',
      }));
    },
  });
  const chunkEntries = {
    ...Object.fromEntries(readdirSync('bundles/chunks').filter((f) => f.endsWith('.ts')).map((f) => [basename(f, '.ts'), `bundles/chunks/${f}`])),
    ...Object.fromEntries(Object.values(platforms).map((name) => [name, `plugins/${name}/index.ts`])),
  };
  // Each combination of two or three element chunks, named in the loader's order (ELEMENT_CHUNKS).
  const combos = [[0, 1], [0, 2], [1, 2], [0, 1, 2]].map((c) => c.map((i) => ELEMENT_CHUNKS[i]).join('_'));
  const chunkBuild = (common, languages, options) => build({
    ...browser,
    plugins: [...browser.plugins, linking(common, languages)],
    entryPoints: { ...chunkEntries, ...Object.fromEntries(combos.map((c) => [c, `combo:${c}`])) },
    outdir: OUT,
    format: 'esm',
    metafile: true,
    ...options,
  });

  rmSync('dist/chunks', { recursive: true, force: true });
  // The banner's languages, each a file of its own.
  const textsBuild = await build({
    ...browser, plugins: [...browser.plugins, linking()], entryPoints: Object.fromEntries(texts), outdir: OUT, format: 'esm', metafile: true,
  });
  const languages = chunkManifest(textsBuild.metafile);
  // 1. Which modules `common` holds: those of the shared files esbuild's code splitting makes of the chunks (not the
  //    combos) that both an element chunk and another chunk import, and the core's.
  const split = await build({
    ...browser, plugins: [...browser.plugins, linking()], entryPoints: chunkEntries, outdir: OUT, format: 'esm', splitting: true, metafile: true, write: false,
  });
  const common = { modules: [...sharedModules(split.metafile, chunkEntries), ...held] };
  // 2. Which of their names the chunks use, and a short name for each. Of the shared modules, `common` keeps those
  //    that an element's chunk and another both use (and what those import of them): the rest go in the chunks.
  const usage = async () => {
    const used = new Set();
    const users = new Map();
    for (const { path, text } of (await chunkBuild(common, languages, { write: false, sourcemap: false })).outputFiles) {
      const element = basename(path, '.js').split('_').every((n) => ELEMENT_SIDE.includes(n));
      for (const [, m, name] of text.matchAll(/\("common(\d+)","([\w$]+)"\)/g)) {
        used.add(`${m} ${name}`);
        users.set(common.modules[m], { ...users.get(common.modules[m]), [element ? 'element' : 'other']: true });
      }
    }
    return { used, users };
  };
  const { users } = await usage();
  const shared = common.modules.filter((path) => !held.has(path));
  const kept = shared.filter((path) => users.get(path)?.element && users.get(path)?.other);
  for (let i = 0; i < kept.length; i++) {
    for (const { path } of split.metafile.inputs[kept[i]].imports) if (shared.includes(path) && !kept.includes(path)) kept.push(path);
  }
  common.modules = [...kept.sort(), ...held];
  const { used } = await usage();
  common.names = new Map([...used].sort().map((key, i) => {
    const [m, name] = key.split(' ');
    return [shortName(i), [Number(m), name]];
  }));
  // 3. The common file, then the chunks and combos that import it.
  const buildCommon = () => build({
    ...browser,
    plugins: [...browser.plugins, linking()],
    stdin: {
      contents: common.modules.map((path, m) => {
        const names = [...common.names].filter(([, [module]]) => module === m);
        return names.length ? `export { ${names.map(([alias, [, n]]) => `${n} as ${alias}`).join(', ')} } from './${path}';` : '';
      }).join('\n'),
      resolveDir: process.cwd(),
      sourcefile: 'common.ts',
      loader: 'ts',
    },
    outdir: OUT,
    entryNames: 'common',
    format: 'esm',
  });
  await buildCommon();
  const manifest = { ...chunkManifest((await chunkBuild(common, languages)).metafile), ...languages };
  // What the chunks borrow, read off their code: `borrow(<module>, "<name>")` calls (minified, under any name).
  const wanted = new Map([...borrowed].map((path) => [coreModules.indexOf(path), new Set()]));
  for (const file of chunkFiles(OUT)) {
    for (const [, m, name] of readFileSync(file, 'utf8').matchAll(/\((\d+),"([\w$]+)"\)/g)) wanted.get(Number(m))?.add(name);
  }
  const kit = [...wanted].filter(([, names]) => names.size > 0).flatMap(([m, names]) => [...names].map((name) => [m, name]));
  // 4. The kit is a list: `common` is built again to read each name by its place in it (no module numbers or names in
  //    service.js). Only `common` borrows: a chunk that did would read the wrong slots.
  kitSlots = new Map(kit.map(([m, name], i) => [`${m} ${name}`, i]));
  await buildCommon();
  for (const file of chunkFiles(OUT)) {
    if (basename(file) !== 'common.js' && readFileSync(file, 'utf8').includes(kitKey)) throw new Error(`${file} borrows from the core itself`);
  }
  // Every chunk imports nothing but `common` (some not even that): the loader fetches a chunk's file and `common` at
  // once, which is what the manifest lists.
  for (const [name, files] of Object.entries(manifest)) {
    if (files[0] !== name || files.slice(1).some((f) => f !== 'common')) throw new Error(`chunk ${name}: ${files}`);
    manifest[name] = [name, 'common'];
  }
  // The chunks' folder is named after their code: a build's chunks never mix with another's.
  await Promise.all(chunkFiles(OUT).map((f) => terse(f, true)));
  const hash = createHash('sha256');
  for (const file of chunkFiles(OUT).sort()) hash.update(`${file}\0${readFileSync(file, 'utf8')}\0`);
  const folder = hash.digest('hex').slice(0, 8);
  renameSync(OUT, `dist/chunks/${folder}`);
  await build({
    ...core,
    entryPoints: undefined,
    outfile: 'dist/service.js',
    define: { ...define, SVC_CHUNKS: JSON.stringify(folder) },
    stdin: {
      // The kit first: a chunk fetched later finds the core's modules under the key.
      contents: `${kit.map(([m, name]) => `import { ${name} as k${m}_${name} } from './${coreModules[m]}';`).join('\n')}
globalThis[Symbol.for(${JSON.stringify(kitKey)})] = [${kit.map(([m, name]) => `k${m}_${name}`).join(', ')}];
import './bundles/service.ts';`,
      resolveDir: process.cwd(),
      sourcefile: 'service-entry.ts',
      loader: 'ts',
    },
  });
  await terse('dist/service.js');
  writeFileSync('dist/chunks/manifest.json', `${JSON.stringify(Object.fromEntries(Object.entries(manifest).map(([name, files]) => [name, files.map((f) => `${folder}/${f}`)])), null, 2)}\n`);
}

/** `a`…`z`, `A`…`Z`, then two letters: the common file's export names. */
function shortName(i) {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return i < letters.length ? letters[i] : letters[Math.floor(i / letters.length) - 1] + letters[i % letters.length];
}

/**
 * The modules of the shared files (code esbuild's code splitting put in a file of its own) that both an element chunk
 * and another chunk (auto-track, a platform) import, directly or through another shared file; not the core's.
 */
function sharedModules(metafile, entries) {
  const chunkOf = new Map(Object.entries(entries).map(([chunk, path]) => [path, chunk]));
  const reach = new Map();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!chunkOf.has(output.entryPoint)) continue;
    const element = ELEMENT_SIDE.includes(chunkOf.get(output.entryPoint));
    const files = [file];
    for (let i = 0; i < files.length; i++) {
      for (const imported of metafile.outputs[files[i]].imports) {
        if (imported.kind === 'import-statement' && !files.includes(imported.path)) files.push(imported.path);
      }
    }
    for (const shared of files.slice(1)) reach.set(shared, { ...reach.get(shared), [element ? 'element' : 'other']: true });
  }
  return [...reach].filter(([, r]) => r.element && r.other).flatMap(([file]) => Object.entries(metafile.outputs[file].inputs)
    .filter(([path, input]) => input.bytesInOutput > 0 && !path.includes(':')).map(([path]) => path)).sort();
}

/** The names a module exports (its values; types are gone once compiled). */
async function exportNames(path) {
  const result = await build({ entryPoints: [path], write: false, metafile: true, format: 'esm', bundle: false });
  return Object.values(result.metafile.outputs)[0].exports;
}

/**
 * `{chunk: [its file, then the files it imports]}` from a build's metafile, names without the folder and `.js`; a
 * chunk's file is named after its entry (`experiences`, `texts-de`, `experiences_recommendations`).
 */
function chunkManifest(metafile) {
  const manifest = {};
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!output.entryPoint || !file.endsWith('.js')) continue;
    const imports = output.imports.filter((i) => i.kind === 'import-statement').map((i) => basename(i.path, '.js'));
    manifest[basename(file, '.js')] = [basename(file, '.js'), ...new Set(imports)];
  }
  return manifest;
}
