import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseListenAddress } from './listen.js';

test('parses listen addresses the way node_exporter writes them', () => {
  assert.deepEqual(parseListenAddress(':9717'), { host: undefined, port: 9717 });
  assert.deepEqual(parseListenAddress('127.0.0.1:0'), { host: '127.0.0.1', port: 0 });
  assert.deepEqual(parseListenAddress('[::1]:9717'), { host: '::1', port: 9717 });
  assert.deepEqual(parseListenAddress('localhost:80'), { host: 'localhost', port: 80 });
});

test('rejects listen addresses without a valid port', () => {
  for (const bad of ['9717', 'host:', 'host:99999', ':abc', '::1:9717']) {
    assert.throws(() => parseListenAddress(bad), /invalid listen address/, bad);
  }
});
