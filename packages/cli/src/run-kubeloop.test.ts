/** The dispatcher and what every command shares: --help, exit codes, one-line errors, no colour off a terminal. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { COMMANDS } from './command-table.js';
import { memoryIo } from './memory-io.test-helper.js';
import { runKubeloop } from './run-kubeloop.js';
import { colourWanted, createStyle } from './style.js';

describe('kubeloop', () => {
  test('--help lists every command and the exit codes, exit 0; no arguments prints it to stderr with exit 2', async () => {
    const io = memoryIo('/');
    assert.equal(await runKubeloop(['--help'], io), 0);
    const help = io.stdout.join('\n');
    for (const command of COMMANDS) assert.match(help, new RegExp(`^  ${command.name}\\s+\\S`, 'm'));
    assert.match(help, /Exit codes: 0 ok, 1 failure, 2 usage error/);
    const bare = memoryIo('/');
    assert.equal(await runKubeloop([], bare), 2);
    assert.match(bare.stderr.join('\n'), /^Usage: kubeloop <command>/);
  });

  test('every command has --help (also as `kubeloop help <command>`), exit 0, naming its flags', async () => {
    for (const command of COMMANDS) {
      const io = memoryIo('/');
      assert.equal(await runKubeloop([command.name, '--help'], io), 0, command.name);
      assert.match(io.stdout.join('\n'), new RegExp(`^Usage: kubeloop ${command.name}`));
      assert.match(io.stdout.join('\n'), /-h, --help/);
      const viaHelp = memoryIo('/');
      assert.equal(await runKubeloop(['help', command.name], viaHelp), 0);
      assert.deepEqual(viaHelp.stdout, io.stdout);
    }
  });

  test('an unknown command or flag is one line and a hint, exit 2, no stack trace', async () => {
    const unknown = memoryIo('/');
    assert.equal(await runKubeloop(['deploy'], unknown), 2);
    assert.deepEqual(unknown.stderr, ['kubeloop: unknown command "deploy" (commands: init, generate, dev, manifests)', "Run 'kubeloop --help' for usage."]);
    for (const name of ['init', 'generate', 'manifests']) {
      const io = memoryIo('/');
      assert.equal(await runKubeloop([name, '--colour'], io), 2, name);
      assert.deepEqual(io.stderr, [`kubeloop ${name}: Unknown option '--colour'`, `Run 'kubeloop ${name} --help' for usage.`]);
      assert.deepEqual(io.stdout, []);
    }
    const missing = memoryIo('/');
    assert.equal(await runKubeloop(['manifests', '--image'], missing), 2);
    assert.match(missing.stderr[0] ?? '', /^kubeloop manifests: Option '--image <value>' argument missing$/);
  });

  test('--version prints the version', async () => {
    const io = memoryIo('/');
    assert.equal(await runKubeloop(['--version'], io), 0);
    assert.match(io.stdout[0] ?? '', /^\d+\.\d+\.\d+/);
  });

  test('colour only on a terminal, never with NO_COLOR or TERM=dumb; plain styles change nothing', () => {
    assert.equal(colourWanted({ isTTY: true }, {}), true);
    assert.equal(colourWanted({ isTTY: false }, {}), false);
    assert.equal(colourWanted({}, {}), false);
    assert.equal(colourWanted({ isTTY: true }, { NO_COLOR: '1' }), false);
    assert.equal(colourWanted({ isTTY: true }, { TERM: 'dumb' }), false);
    assert.equal(createStyle(false).green('ok'), 'ok');
    assert.equal(createStyle(true).green('ok'), '\u001b[32mok\u001b[39m');
  });
});
