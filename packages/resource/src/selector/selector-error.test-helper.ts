import assert from 'node:assert/strict';
import { isSelectorError } from '../errors.js';

/**
 * A predicate for `assert.throws`: the error is a SelectorError of a `kind` selector that names the
 * offending `token` of `text`, and its message matches `message` when one is given.
 */
export function selectorErrorNaming(
  kind: 'label' | 'field',
  text: string,
  token: string,
  message?: RegExp,
): (err: unknown) => true {
  return (err) => {
    assert.ok(isSelectorError(err));
    assert.equal(err.code, 'SelectorError');
    assert.equal(err.token, token);
    assert.equal(err.selector, text);
    assert.ok(err.message.startsWith(`invalid ${kind} selector ${JSON.stringify(text)}: `), err.message);
    if (message) assert.match(err.message, message);
    return true;
  };
}
