import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EmptyLabelFilters, labelSelectorFromFilters } from './label-filters.js';

describe('label filters', () => {
  test('EmptyLabelFilters selects everything and cannot be changed', () => {
    assert.equal(labelSelectorFromFilters(EmptyLabelFilters), '');
    assert.throws(() => (EmptyLabelFilters as string[]).push('a=b'), TypeError);
  });

  test('filters are joined into one selector that requires all of them, as the Go client does', () => {
    assert.equal(labelSelectorFromFilters(['app=web', 'tier!=cache', 'env in (prod,staging)']), 'app=web,tier!=cache,env in (prod,staging)');
  });
});
