import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALL_SCENARIOS, FULL_SIZES, QUICK_SIZES, parseBenchOptions } from './options.js';

describe('parseBenchOptions', () => {
  test('runs every scenario at full size and writes the results by default', () => {
    const o = parseBenchOptions([]);
    assert.equal(o.quick, false);
    assert.deepEqual(o.scenarios, ALL_SCENARIOS);
    assert.deepEqual(o.sizes, FULL_SIZES);
    assert.equal(o.write, true);
    assert.equal(o.sizes.ingestEvents, 200_000);
  });

  test('--quick uses the tiny sizes and --only keeps report order', () => {
    const o = parseBenchOptions(['--quick', '--only=latency,watch-ingest']);
    assert.deepEqual(o.sizes, QUICK_SIZES);
    assert.deepEqual(o.scenarios, ['watch-ingest', 'latency']);
  });

  test('--runs and --events override the sizes without changing the presets', () => {
    const o = parseBenchOptions(['--runs=5', '--events=1000', '--no-write']);
    assert.equal(o.sizes.runs, 5);
    assert.equal(o.sizes.latencyRuns, 5, '--runs sets the rounds of every scenario');
    assert.equal(o.sizes.scaleRuns, 5);
    assert.equal(o.sizes.ingestEvents, 1000);
    assert.equal(o.write, false);
    assert.equal(FULL_SIZES.runs, 3);
    assert.equal(FULL_SIZES.latencyRuns, 7);
  });

  test('rejects unknown options, unknown scenarios and bad numbers with the usage', () => {
    assert.throws(() => parseBenchOptions(['--fast']), /unknown option --fast[\s\S]*usage/);
    assert.throws(() => parseBenchOptions(['--only=bogus']), /unknown scenario bogus/);
    assert.throws(() => parseBenchOptions(['--runs=0']), /positive integer/);
    assert.throws(() => parseBenchOptions(['--events=many']), /positive integer/);
  });
});
