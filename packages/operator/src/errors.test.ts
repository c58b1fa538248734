import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, NetworkError } from '@kubeloop/resource';
import { FinalizerOperationError, ReconcileError, TerminalError, isAbortError, isTerminalError } from './errors.js';

describe('isAbortError', () => {
  test('recognises the abort errors of AbortSignal, Node and the @kubeloop/resource transport', () => {
    const controller = new AbortController();
    controller.abort();
    assert.equal(isAbortError(controller.signal.reason), true);
    assert.equal(isAbortError(Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' })), true);
    assert.equal(isAbortError(new NetworkError('PATCH widgets/a: aborted', { errno: 'ABORT_ERR' })), true);
  });

  test('finds an abort wrapped in a finalizer error inside a reconcile error', () => {
    const aborted = new NetworkError('PATCH widgets/a: aborted', { errno: 'ABORT_ERR' });
    const finalizer = new FinalizerOperationError('add', 'operator.v1.widget.example.com', 'error adding finalizer: aborted', { cause: aborted });
    assert.equal(isAbortError(finalizer), true);
    assert.equal(isAbortError(new ReconcileError(finalizer, {})), true);
  });

  test('matches the given signal reason anywhere in the chain, whatever it is', () => {
    const reason = { why: 'operator stopping' };
    assert.equal(isAbortError(reason, reason), true);
    assert.equal(isAbortError(new Error('wrapped', { cause: reason }), reason), true);
    assert.equal(isAbortError(new Error('wrapped', { cause: reason })), false, 'without the reason it is an ordinary error');
  });

  test('is false for other errors and non-errors, and stops on a cyclic cause chain', () => {
    assert.equal(isAbortError(new ApiError({ status: 500, reason: 'InternalError' })), false);
    assert.equal(isAbortError(new FinalizerOperationError('remove', 'f', 'conflict', { cause: new ApiError({ status: 409, reason: 'Conflict' }) })), false);
    assert.equal(isAbortError(undefined), false);
    assert.equal(isAbortError('AbortError'), false);
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    assert.equal(isAbortError(a), false);
  });
});

describe('isTerminalError', () => {
  test('finds a TerminalError anywhere in the cause chain, as Go errors.Is unwraps', () => {
    const terminal = new TerminalError(new Error('spec cannot be satisfied'));
    assert.equal(isTerminalError(terminal), true);
    assert.equal(isTerminalError(new Error('reconcile widget a', { cause: terminal })), true);
    assert.equal(isTerminalError(new ReconcileError(new Error('outer', { cause: terminal }), {})), true);
  });

  test('is false for ordinary errors, a TerminalError only mentioned in a message, and a cyclic chain', () => {
    assert.equal(isTerminalError(new Error('terminal error: not really')), false);
    assert.equal(isTerminalError(new ReconcileError(new Error('transient'), {})), false);
    assert.equal(isTerminalError(undefined), false);
    const a = new Error('a');
    (a as { cause?: unknown }).cause = new Error('b', { cause: a });
    assert.equal(isTerminalError(a), false);
  });
});
