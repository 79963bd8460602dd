// Builds every artefact (the README's "Builds" table) with esbuild; `--if-missing` skips the build when all outputs exist
// (what `npm start` uses so a first run on a fresh clone builds and later runs start at once).
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { minify } from 'terser';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const outputs = ['dist/service.js', 'dist/service-core.js', 'dist/svc-results.js', 'dist/svc-admin.js', 'dist/esm/index.js', 'dist/server.mjs', 'dist/sqlite-thread.mjs', 'dist/programs.mjs', 'dist/create-admin.mjs', 'dist/copy-to-postgres.mjs'];
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

await Promise.all([
  build({ ...browser, entryPoints: ['bundles/service-core.ts'], outfile: 'dist/service-core.js', format: 'iife' }),
  build({ ...browser, entryPoints: ['bundles/service.ts'], outfile: 'dist/service.js', format: 'iife' }),
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

// A second minification pass over the two IIFE bundles: terser's compressor finds ≈3% more than esbuild's
// in this code, which is what keeps everything a CMS page needs inside its 23.25 KiB budget.
for (const file of ['dist/service-core.js', 'dist/service.js']) {
  const name = file.slice('dist/'.length);
  const result = await minify(readFileSync(file, 'utf8'), {
    // keep_fargs: false drops unused trailing parameters; nothing here (nor in Lit) reads a function's `length`.
    compress: { passes: 3, keep_fargs: false },
    mangle: true,
    ecma: 2020,
    format: { comments: false },
    sourceMap: { content: readFileSync(`${file}.map`, 'utf8'), url: `${name}.map` },
  });
  writeFileSync(file, result.code);
  writeFileSync(`${file}.map`, String(result.map));
}

// Precompressed copies of the script-tag bundles, which the service sends by Accept-Encoding (server/http/
// static-routes.ts): compressed once here at the highest levels rather than on every request.
for (const file of ['dist/service.js', 'dist/service-core.js', 'dist/svc-results.js', 'dist/svc-admin.js']) {
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
console.log(`built ${outputs.join(', ')} and dist/types (plugins: ${pluginNames.join(', ') || 'none'})`);
