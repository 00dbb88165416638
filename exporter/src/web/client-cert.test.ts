import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeAllowedSans, sanValues } from './client-cert.js';

test('SAN values are read from Node subjectAltName strings, quoted ones included', () => {
  assert.deepEqual(sanValues('DNS:scraper.example, IP Address:10.0.0.7, email:prom@example.org, URI:spiffe://cluster/prom'), [
    'scraper.example',
    '10.0.0.7',
    'prom@example.org',
    'spiffe://cluster/prom',
  ]);
  assert.deepEqual(sanValues('DNS:"a, b", DNS:c'), ['a, b', 'c']);
  assert.deepEqual(sanValues(undefined), []);
});

test('allowed SANs match exactly, IPv6 in any spelling', () => {
  const allowed = makeAllowedSans(['scraper.example', '2001:db8::1']);
  assert.equal(allowed('DNS:scraper.example'), true);
  assert.equal(allowed('DNS:scraper.example.evil'), false);
  assert.equal(allowed('DNS:other.example, IP Address:2001:DB8:0:0:0:0:0:1'), true);
  assert.equal(allowed('email:scraper.example@x'), false);
  assert.equal(allowed(undefined), false);
});
