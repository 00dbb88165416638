import { test } from 'node:test';
import assert from 'node:assert/strict';
import { autoOrPositive, connectionBudget, openFilesLimit } from './connection-budget.js';

const limits = (soft: string, hard: string): string =>
  ['Limit                     Soft Limit           Hard Limit           Units     ', `Max open files            ${soft.padEnd(20)} ${hard.padEnd(20)} files     `, ''].join('\n');

test("the exporter's open-files limit is read from its limits file (soft figure); unlimited is no figure", () => {
  assert.equal(openFilesLimit(limits('20000', '20000')), 20000);
  assert.equal(openFilesLimit(limits('1024', '524288')), 1024);
  assert.equal(openFilesLimit(limits('unlimited', 'unlimited')), undefined);
  assert.equal(openFilesLimit(''), undefined);
});

test('the connection budget is half the descriptors, between 4096 and 65536, a quarter of it per uid', () => {
  assert.deepEqual(connectionBudget(20000), { total: 10000, perUser: 2500 });
  assert.deepEqual(connectionBudget(1024), { total: 4096, perUser: 1024 });
  assert.deepEqual(connectionBudget(524288), { total: 65536, perUser: 16384 });
  assert.deepEqual(connectionBudget(undefined), { total: 4096, perUser: 1024 });
  assert.deepEqual(connectionBudget(20000, { perUser: 256 }), { total: 10000, perUser: 256 });
  assert.deepEqual(connectionBudget(20000, { total: 400, perUser: 0 }), { total: 400, perUser: 100 });
});

test('the flags take auto (0) or a positive integer', () => {
  assert.equal(autoOrPositive('auto'), 0);
  assert.equal(autoOrPositive('300'), 300);
  assert.throws(() => autoOrPositive('0'), /neither auto nor a positive integer/);
  assert.throws(() => autoOrPositive('-1'), /neither auto/);
});
