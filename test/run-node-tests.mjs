// `npm run test:node`: the service's test files (test/server/<domain>/*.test.ts) and the build's (test/build/), each in
// a process of its own. Two files run at a time, except those that lean on the machine: a file that kills a process
// or drives a browser, runs two nodes, or waits on sockets' deadlines runs afterwards, one at a time, so it
// never shares the two cores with another file. Files named on the command line run one at a time, in that order.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const ALONE_TEXT = /SIGKILL|puppeteer/;
const ALONE_NAME = /\/e2e\/|(crash|nodes|edges|aborts|delivery|write-gate)\.test\.ts$/;

/** Every `*.test.ts` under `dir`, one level of folders deep when `nested`. */
function testFiles(dir, nested) {
  const folders = nested ? readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `${dir}/${d.name}`) : [dir];
  return folders.flatMap((folder) => readdirSync(folder).filter((f) => f.endsWith('.test.ts')).map((f) => `${folder}/${f}`)).sort();
}

function run(files, concurrency) {
  if (files.length === 0) return 0;
  const args = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files];
  return spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;
}

const named = process.argv.slice(2);
if (named.length > 0) process.exit(run(named, 1));

const files = [...testFiles('test/server', true), ...testFiles('test/build', false)];
const alone = files.filter((file) => ALONE_NAME.test(file) || ALONE_TEXT.test(readFileSync(file, 'utf8')));
const shared = files.filter((file) => !alone.includes(file));
const failed = [run(shared, 2), run(alone, 1)].some((status) => status !== 0);
process.exit(failed ? 1 : 0);
