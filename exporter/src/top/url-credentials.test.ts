import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endpoint, shownUrl } from './url-credentials.js';

test('endpoint: credentials leave the URL for an Authorization header, percent-decoded', () => {
  assert.deepEqual(endpoint('http://prom:9090/'), { url: 'http://prom:9090/', headers: {} });
  const e = endpoint('https://top:p%40ss%3Aw%2Frd@prom.example:9090/prefix');
  assert.equal(e.url, 'https://prom.example:9090/prefix');
  assert.equal(Buffer.from((e.headers.Authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8'), 'top:p@ss:w/rd');
});

test('shownUrl: the password is replaced, the rest is kept', () => {
  assert.equal(shownUrl('http://top:secret@prom:9090/x'), 'http://top:***@prom:9090/x');
  assert.equal(shownUrl('http://prom:9090/x'), 'http://prom:9090/x');
  assert.equal(shownUrl('not a url'), 'not a url');
});
