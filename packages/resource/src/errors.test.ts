import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiError,
  CodecError,
  KubeloopError,
  NetworkError,
  SelectorError,
  isAlreadyExists,
  isApiError,
  isBadRequest,
  isCodecError,
  isConflict,
  isExpired,
  isForbidden,
  isGone,
  isInvalid,
  isKubeloopError,
  isNetworkError,
  isNotFound,
  isSelectorError,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  reasonForHttpStatus,
} from './errors.js';
import type { Status } from './errors.js';

function status(code: number, reason: string, message = `${reason} happened`): Status {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message };
}

describe('ApiError.fromStatus', () => {
  test('takes code, reason, message and details from a Status body and keeps the body', () => {
    const body: Status = { ...status(422, 'Invalid', 'spec.title: Required value'), details: { name: 'p', kind: 'Playlist', causes: [{ field: 'spec.title', reason: 'FieldValueRequired' }] } };
    const err = ApiError.fromStatus(body, 422);
    assert.equal(err.status, 422);
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, 'spec.title: Required value');
    assert.equal(err.details?.causes?.[0]?.field, 'spec.title');
    assert.equal(err.body, body);
    assert.equal(err.code, 'ApiError');
    assert.equal(err.name, 'ApiError');
    assert.ok(err instanceof KubeloopError);
  });

  test('without a body, derives status and reason from the HTTP status', () => {
    const err = ApiError.fromStatus({}, 404);
    assert.equal(err.status, 404);
    assert.equal(err.reason, 'NotFound');
    assert.equal(err.message, '404 NotFound');
    assert.equal(err.body, undefined);
    assert.ok(isNotFound(err));
  });

  test('without a body or HTTP status, is a 500', () => {
    const err = ApiError.fromStatus({});
    assert.equal(err.status, 500);
    assert.ok(isServerError(err));
  });

  test('reads Retry-After in seconds from the header', () => {
    assert.equal(ApiError.fromStatus(status(429, 'TooManyRequests'), 429, '7').retryAfterSeconds, 7);
  });

  test('falls back to details.retryAfterSeconds when the header is absent or not a number', () => {
    const body = { ...status(429, 'TooManyRequests'), details: { retryAfterSeconds: 3 } };
    assert.equal(ApiError.fromStatus(body, 429).retryAfterSeconds, 3);
    assert.equal(ApiError.fromStatus(body, 429, null).retryAfterSeconds, 3);
    assert.equal(ApiError.fromStatus(body, 429, 'soon').retryAfterSeconds, 3);
  });

  test('has no retry hint when neither header nor details give one', () => {
    assert.equal(ApiError.fromStatus(status(503, 'ServiceUnavailable'), 503, '').retryAfterSeconds, undefined);
  });

  test('a watch ERROR event Status with code 410 Expired is gone', () => {
    const err = ApiError.fromStatus(status(410, 'Expired', 'too old resource version: 1 (5)'));
    assert.ok(isGone(err));
    assert.ok(isExpired(err));
  });
});

describe('reasonForHttpStatus', () => {
  const cases: [number, string][] = [
    [400, 'BadRequest'],
    [404, 'NotFound'],
    [409, 'Conflict'],
    [410, 'Expired'],
    [422, 'Invalid'],
    [429, 'TooManyRequests'],
    [502, 'InternalError'],
    [418, 'Unknown'],
  ];
  for (const [code, reason] of cases) {
    test(`maps ${code} to ${reason}`, () => assert.equal(reasonForHttpStatus(code), reason));
  }
});

const guards = {
  isApiError,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isGone,
  isExpired,
  isInvalid,
  isBadRequest,
  isTooManyRequests,
  isUnauthorized,
  isForbidden,
  isServerError,
  isNetworkError,
  isCodecError,
  isSelectorError,
} satisfies Record<string, (err: unknown) => boolean>;
type GuardName = keyof typeof guards;

const api = (code: number, reason: string): ApiError => ApiError.fromStatus(status(code, reason), code);

describe('error guards', () => {
  const cases: { name: string; err: unknown; truthy: GuardName[] }[] = [
    { name: '404 NotFound', err: api(404, 'NotFound'), truthy: ['isApiError', 'isNotFound'] },
    { name: '409 Conflict', err: api(409, 'Conflict'), truthy: ['isApiError', 'isConflict'] },
    { name: '409 AlreadyExists', err: api(409, 'AlreadyExists'), truthy: ['isApiError', 'isAlreadyExists'] },
    { name: '410 Expired', err: api(410, 'Expired'), truthy: ['isApiError', 'isGone', 'isExpired'] },
    { name: '410 Gone', err: api(410, 'Gone'), truthy: ['isApiError', 'isGone', 'isExpired'] },
    { name: '422 Invalid', err: api(422, 'Invalid'), truthy: ['isApiError', 'isInvalid'] },
    { name: '400 BadRequest', err: api(400, 'BadRequest'), truthy: ['isApiError', 'isBadRequest'] },
    { name: '429 TooManyRequests', err: api(429, 'TooManyRequests'), truthy: ['isApiError', 'isTooManyRequests'] },
    { name: '401 Unauthorized', err: api(401, 'Unauthorized'), truthy: ['isApiError', 'isUnauthorized'] },
    { name: '403 Forbidden', err: api(403, 'Forbidden'), truthy: ['isApiError', 'isForbidden'] },
    { name: '500 InternalError', err: api(500, 'InternalError'), truthy: ['isApiError', 'isServerError'] },
    { name: '503 ServiceUnavailable', err: api(503, 'ServiceUnavailable'), truthy: ['isApiError', 'isServerError'] },
    { name: 'a NetworkError', err: new NetworkError('connect ECONNREFUSED', { errno: 'ECONNREFUSED' }), truthy: ['isNetworkError'] },
    { name: 'a CodecError', err: new CodecError('bad'), truthy: ['isCodecError'] },
    { name: 'a SelectorError', err: new SelectorError('bad', 'a in', 'in'), truthy: ['isSelectorError'] },
    { name: 'a plain Error', err: new Error('boom'), truthy: [] },
    { name: 'a string', err: 'NotFound', truthy: [] },
    { name: 'null', err: null, truthy: [] },
    { name: 'undefined', err: undefined, truthy: [] },
    { name: 'an object named ApiError without a numeric status', err: { name: 'ApiError', status: '404' }, truthy: [] },
    // A second installed copy of the package: not our class, but the same name/code/status.
    { name: 'a foreign 404 (second installed copy)', err: { name: 'ApiError', code: 'ApiError', status: 404, reason: 'NotFound' }, truthy: ['isApiError', 'isNotFound'] },
    { name: 'a foreign 409 Conflict (second installed copy)', err: { code: 'ApiError', status: 409, reason: 'Conflict' }, truthy: ['isApiError', 'isConflict'] },
    { name: 'a foreign 410 (second installed copy)', err: { name: 'ApiError', status: 410, reason: 'Expired' }, truthy: ['isApiError', 'isGone', 'isExpired'] },
    { name: 'a foreign 503 (second installed copy)', err: { name: 'ApiError', status: 503, reason: 'ServiceUnavailable' }, truthy: ['isApiError', 'isServerError'] },
    { name: 'a foreign NetworkError (second installed copy)', err: { name: 'NetworkError', code: 'NetworkError' }, truthy: ['isNetworkError'] },
    { name: 'a foreign CodecError (second installed copy)', err: { code: 'CodecError' }, truthy: ['isCodecError'] },
    { name: 'a foreign SelectorError (second installed copy)', err: { name: 'SelectorError' }, truthy: ['isSelectorError'] },
  ];
  for (const { name, err, truthy } of cases) {
    test(`${name} satisfies exactly ${truthy.length === 0 ? 'no guard' : truthy.join(', ')}`, () => {
      const actual = (Object.keys(guards) as GuardName[]).filter((g) => guards[g](err));
      assert.deepEqual(actual, truthy);
    });
  }

  test('isKubeloopError is true for every kubeloop error and false for others', () => {
    for (const err of [api(404, 'NotFound'), new NetworkError('x'), new CodecError('x'), new SelectorError('x', 'a', 'a'), new KubeloopError('Custom', 'x')]) {
      assert.ok(isKubeloopError(err), err.name);
    }
    assert.ok(!isKubeloopError(new Error('x')));
    assert.ok(!isKubeloopError({ code: 'ApiError', message: 'x' }));
  });
});

describe('error classes', () => {
  test('NetworkError keeps errno and cause', () => {
    const cause = new Error('socket hang up');
    const err = new NetworkError('request failed', { cause, errno: 'ECONNRESET' });
    assert.equal(err.errno, 'ECONNRESET');
    assert.equal(err.cause, cause);
    assert.equal(err.code, 'NetworkError');
  });

  test('CodecError cuts its input to 200 characters', () => {
    assert.equal(new CodecError('bad', { input: 'x'.repeat(300) }).input?.length, 200);
    assert.equal(new CodecError('bad').input, undefined);
  });

  test('SelectorError keeps selector and token', () => {
    const err = new SelectorError('bad', 'a in (b', 'b');
    assert.deepEqual([err.selector, err.token, err.code], ['a in (b', 'b', 'SelectorError']);
  });

  test('ApiError message defaults to status and reason', () => {
    assert.equal(new ApiError({ status: 409 }).message, '409 Conflict');
    assert.equal(new ApiError({ status: 409, reason: 'AlreadyExists' }).message, '409 AlreadyExists');
  });
});
