// Builds every artefact of DESIGN 3.1 with esbuild; `--if-missing` skips the build when all outputs exist
// (what `npm start` uses so a first run on a fresh clone builds and later runs start at once).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const outputs = ['dist/service.js', 'dist/service-core.js', 'dist/esm/index.js', 'dist/server.mjs'];
if (process.argv.includes('--if-missing') && outputs.every((f) => existsSync(f))) process.exit(0);

// Production builds strip development diagnostics (Lit's DEV_MODE pattern): see src/dev-mode.ts.
const define = { SVC_DEV: 'false', SVC_VERSION: JSON.stringify(pkg.version) };
const browser = { bundle: true, minify: true, sourcemap: true, target: 'es2022', define, legalComments: 'none' };
const pluginNames = existsSync('plugins')
  ? readdirSync('plugins', { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(`plugins/${d.name}/index.ts`))
      .map((d) => d.name)
  : [];

await Promise.all([
  build({ ...browser, entryPoints: ['src/service-global.ts'], outfile: 'dist/service-core.js', format: 'iife' }),
  build({ ...browser, entryPoints: ['src/service-cms.ts'], outfile: 'dist/service.js', format: 'iife' }),
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
    entryPoints: ['server/main.ts'],
    outfile: 'dist/server.mjs',
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    define: { SVC_VERSION: JSON.stringify(pkg.version) },
  }),
]);

// Type declarations for the ESM build (`exports` in package.json points at them).
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
console.log(`built ${outputs.join(', ')} and dist/types (plugins: ${pluginNames.join(', ') || 'none'})`);
