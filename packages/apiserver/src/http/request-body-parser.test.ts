/**
 * The worker thread behind large request bodies: what it parses, what happens when it dies, cannot
 * start or is stopped, and that it never holds the process open (from dist and from sources).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isStatusError } from '../http/status-error.js';
import { RequestBodyParser, jsonOffLoopThresholdChars, offLoopThresholdChars } from './request-body-parser.js';
import { parseJsonText } from './json-text.js';
import { parseYamlText } from '../yaml/yaml-text.js';

/** A ConfigMap in block YAML with `keys` data keys (about 12 characters each). */
function configMapYaml(keys: number, extra = ''): string {
  const data = Array.from({ length: keys }, (_, i) => `  k${i}: v`).join('\n');
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${data}\n${extra}`;
}

// Over the threshold: the worker's.
const large = configMapYaml(3_000);
const fromSources = import.meta.url.endsWith('.ts');
/** A compiled module of this directory: beside this file in dist, in dist from sources (build first). */
const compiled = (file: string): string => fileURLToPath(new URL(fromSources ? `../../dist/http/${file}` : `./${file}`, import.meta.url));
// The worker thread runs JavaScript: from sources too, the tests give it the compiled module.
const workerModule = compiled('../worker/off-loop-worker-main.js');

describe('RequestBodyParser', () => {
  const parsers: RequestBodyParser[] = [];
  const dirs: string[] = [];
  const parser = (options?: ConstructorParameters<typeof RequestBodyParser>[0]): RequestBodyParser => {
    const made = new RequestBodyParser(options);
    parsers.push(made);
    return made;
  };
  after(async () => {
    for (const made of parsers) await made.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('a large YAML body is parsed in the worker; small ones and JSON in-thread; the answers are those of parseYamlText', async () => {
    assert.ok(large.length >= offLoopThresholdChars);
    const yaml = parser({ workerModule });
    assert.deepEqual(await yaml.parseYaml(large), parseYamlText(large));
    assert.equal(yaml.parsedOffLoop, 1);
    const twice = configMapYaml(3_000, 'extra: 1\nextra: 2\n');
    assert.deepEqual(await yaml.parseYaml(twice), { ok: false, problem: { kind: 'duplicate-key', key: '"extra"', line: 3_007 } });
    assert.equal(yaml.parsedOffLoop, 2);
    assert.deepEqual(await yaml.parseYaml('a: 1\n'), { ok: true, value: { a: 1 } });
    const json = JSON.stringify((parseYamlText(large) as { value: unknown }).value);
    assert.ok(json.length >= offLoopThresholdChars);
    assert.deepEqual(await yaml.parseYaml(json), { ok: true, value: JSON.parse(json) as unknown });
    assert.equal(yaml.parsedOffLoop, 2, 'neither went to the worker');
    // A JSON document sent as YAML from the JSON threshold up goes to the worker too.
    const largeJson = JSON.stringify({ data: Object.fromEntries(Array.from({ length: 8_000 }, (_, i) => [`k${i}`, 'v'])) });
    assert.ok(largeJson.length >= jsonOffLoopThresholdChars);
    assert.deepEqual(await yaml.parseYaml(largeJson), { ok: true, value: JSON.parse(largeJson) as unknown });
    assert.equal(yaml.parsedOffLoop, 3);
  });

  test('a large JSON body is parsed in the worker with its repeated keys and depth checked, as parseJsonText does in-thread', async () => {
    const bodies = parser({ workerModule });
    const members = Array.from({ length: 8_000 }, (_, i) => `"k${i}":"v"`).join(',');
    const repeated = `{"data":{${members},"k7":"again"},"spec":{"a":1,"a":2}}`;
    assert.ok(repeated.length >= jsonOffLoopThresholdChars);
    for (const findDuplicates of [true, false]) assert.deepEqual(await bodies.parseJson(repeated, findDuplicates), parseJsonText(repeated, findDuplicates));
    const found = await bodies.parseJson(repeated, true);
    assert.ok(found.ok && found.duplicateFields.join() === 'data.k7,spec.a', JSON.stringify(found.ok && found.duplicateFields));
    const deep = `{"data":{${members}},"x":${'['.repeat(1_001)}${']'.repeat(1_001)}}`;
    assert.deepEqual(await bodies.parseJson(deep, false), { ok: false, problem: 'exceeded max depth of 1000' });
    const broken = `{"data":{${members}}`;
    const problem = await bodies.parseJson(broken, false);
    assert.ok(!problem.ok && problem.problem === (parseJsonText(broken, false) as { problem: string }).problem);
    assert.equal(bodies.parsedOffLoop, 5);
    assert.deepEqual(await bodies.parseJson('{"a":1}', true), { ok: true, value: { a: 1 }, duplicateFields: [] });
    assert.equal(bodies.parsedOffLoop, 5, 'a small body is parsed in-thread');
  });

  test('a worker that dies fails the request it was parsing with a 500; the bodies queued behind it go to a new worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-yaml-worker-'));
    dirs.push(dir);
    // A stand-in for the worker (its messages) that dies on a body containing `die-now`, as on a
    // body that kills the real one, and answers every other body with its own worker's number.
    const dying = join(dir, 'dying-worker.mjs');
    writeFileSync(
      dying,
      [
        "import { parentPort, threadId } from 'node:worker_threads';",
        'parentPort.on(\'message\', ({ id, task }) => {',
        "  if (task.text.includes('die-now')) process.exit(7);",
        "  parentPort.postMessage({ id, reply: { kind: 'yaml', parsed: { ok: true, value: threadId } } });",
        '});',
        'parentPort.postMessage({ ready: true });',
      ].join('\n'),
    );
    const yaml = parser({ workerModule: dying });
    const first = await yaml.parseYaml(large);
    const results = await Promise.allSettled([yaml.parseYaml(configMapYaml(3_000, 'die-now: 1\n')), yaml.parseYaml(large), yaml.parseYaml(large)]);
    const [killer, ...queued] = results;
    assert.equal(killer?.status, 'rejected');
    const reason = killer?.status === 'rejected' ? (killer.reason as unknown) : undefined;
    assert.ok(isStatusError(reason), String(reason));
    assert.equal(reason.status.code, 500);
    assert.equal(reason.status.message, "Internal error occurred: the server's worker thread stopped (exit code 7) while parsing the request body");
    assert.ok(first.ok && typeof first.value === 'number');
    for (const result of queued) {
      assert.equal(result.status, 'fulfilled');
      const parsed = result.status === 'fulfilled' ? result.value : undefined;
      assert.ok(parsed?.ok && typeof parsed.value === 'number' && parsed.value !== first.value, 'answered by a new worker');
    }
    assert.equal(yaml.parsedOffLoop, 3);
  });

  test('a worker module that is missing or cannot load means in-thread parsing from then on, said once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-yaml-worker-'));
    dirs.push(dir);
    // As TypeScript sources loaded without a loader the worker can use: the module does not load.
    const unloadable = join(dir, 'unloadable.mjs');
    writeFileSync(unloadable, "import './missing-sibling.js';\n");
    for (const workerModule of [join(dir, 'missing.js'), unloadable]) {
      const lines: string[] = [];
      const yaml = parser({ workerModule, logger: (line) => lines.push(line) });
      const answers = await Promise.all([yaml.parseYaml(large), yaml.parseYaml(large)]);
      assert.deepEqual(answers, [parseYamlText(large), parseYamlText(large)]);
      assert.deepEqual(await yaml.parseYaml(large), parseYamlText(large));
      assert.equal(yaml.parsedOffLoop, 0);
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0] ?? '', /^kubeloop-apiserver: large request bodies are parsed and patched on the event loop: the worker (module .* is missing|thread did not start \(.*missing-sibling)/);
    }
  });

  test('stop() ends the worker: the body it was parsing fails, later ones are parsed in-thread', async () => {
    const yaml = parser({ workerModule });
    const parsing = yaml.parseYaml(configMapYaml(20_000));
    await yaml.stop();
    await assert.rejects(parsing, (err: unknown) => isStatusError(err) && err.status.code === 500 && /the server is stopping/.test(err.status.message ?? ''));
    assert.deepEqual(await yaml.parseYaml(large), parseYamlText(large));
    assert.equal(yaml.parsedOffLoop, 0);
  });

  const script = (module: string, logged = false): string =>
    [
      `import { RequestBodyParser } from ${JSON.stringify(module)};`,
      `const yaml = new RequestBodyParser(${logged ? '{ logger: console.log }' : ''});`,
      `const parsed = await yaml.parseYaml(${JSON.stringify(large)});`,
      'console.log(yaml.parsedOffLoop, parsed.ok);',
    ].join('\n');

  test('a process that parsed a large body and never stopped the parser exits by itself', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-yaml-worker-'));
    dirs.push(dir);
    const file = join(dir, 'parse-and-leave.mjs');
    // The compiled parser, with its default worker module: what a user of the package runs.
    writeFileSync(file, script(compiled('request-body-parser.js')));
    const result = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.signal, null, 'not killed by the timeout');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, '1 true\n');
  });

  // Node 20 gives a worker thread no TypeScript loader (tsx's hooks stay in the main thread): the
  // worker's .ts module cannot load, and bodies are parsed in-thread, said once. Where workers do get
  // the loader, the worker parses them.
  test('from TypeScript sources (tsx, the kubeloop-source condition) large bodies are parsed, in the worker or else in-thread', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeloop-yaml-worker-'));
    dirs.push(dir);
    const file = join(dir, 'from-sources.mts');
    writeFileSync(file, script(fileURLToPath(new URL(fromSources ? './request-body-parser.ts' : '../../src/http/request-body-parser.ts', import.meta.url)), true));
    const result = spawnSync(process.execPath, ['--conditions=kubeloop-source', '--import', import.meta.resolve('tsx'), file], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, result.stderr);
    const inWorker = result.stdout === '1 true\n';
    const inThread = /^kubeloop-apiserver: large request bodies are parsed and patched on the event loop: the worker thread did not start \(Unknown file extension "\.ts".*\)\n0 true\n$/.test(result.stdout);
    assert.ok(inWorker || inThread, result.stdout);
  });
});
