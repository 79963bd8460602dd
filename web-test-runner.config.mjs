// Browser tests run in Debian's Chromium (never a downloaded browser), as root hence --no-sandbox.
import { chromeLauncher } from '@web/test-runner-chrome';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { serviceUnderTest } from './test/helpers/service-under-test.mjs';
import { chaosMiddleware } from './test/helpers/chaos-server.mjs';
import { failingModulesMiddleware } from './test/helpers/failing-modules.mjs';
import { missingChunks } from './test/helpers/missing-chunks.mjs';

// Our real service (dist/server.mjs) behind /v1 (SQLite) and /pg/v1 (PostgreSQL, started on its first request) for the
// tests that run against it.
const service = serviceUnderTest();

export default {
  files: ['test/**/*.test.ts', 'plugins/**/*.test.ts', 'admin/**/*.test.ts', '!test/server/**', '!test/build/**'],
  nodeResolve: true,
  concurrency: 1,
  testFramework: { config: { timeout: 10000 } },
  // A flaky track endpoint of our own for the delivery chaos test (test/outbox-chaos.test.ts), module loads that fail
  // on a page's request (plugins/consent-banner/consent-texts.test.ts), and a copy of dist/service.js whose chunks all
  // answer 404 (test/page-profiles.test.ts).
  middleware: [chaosMiddleware(), failingModulesMiddleware(), missingChunks(), service.middleware],
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }), service.plugin],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
        headless: true,
        args: [
          '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
          '--disable-background-networking', '--disable-component-update', '--disable-sync',
        ],
      },
    }),
  ],
};
