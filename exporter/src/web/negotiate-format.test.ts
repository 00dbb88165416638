import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateFormat } from './negotiate-format.js';

test('Prometheus asks for OpenMetrics first and gets it; curl and no header get the text format', () => {
  // Prometheus 2.x's scrape Accept header, verbatim
  assert.equal(negotiateFormat('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'), 'openmetrics');
  // Prometheus 3 with its default scrape protocols
  assert.equal(
    negotiateFormat(
      'application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,application/openmetrics-text;version=0.0.1;q=0.8,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.6,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
    ),
    'openmetrics',
  );
  assert.equal(negotiateFormat('*/*'), 'text');
  assert.equal(negotiateFormat(undefined), 'text');
  assert.equal(negotiateFormat(''), 'text');
});

test('preference by q, then by the order written; q=0 refuses; unknown versions are not ours', () => {
  assert.equal(negotiateFormat('text/plain;version=0.0.4;q=0.9, application/openmetrics-text;q=0.5'), 'text');
  assert.equal(negotiateFormat('text/plain;q=0.5, application/openmetrics-text'), 'openmetrics');
  assert.equal(negotiateFormat('text/plain, application/openmetrics-text'), 'text', 'equal q: the first written');
  assert.equal(negotiateFormat('application/openmetrics-text;q=0, text/plain;q=0.1'), 'text');
  assert.equal(negotiateFormat('application/openmetrics-text;q=abc'), 'text', 'a q that is no number refuses');
  assert.equal(negotiateFormat('application/openmetrics-text; version=2.0.0'), 'text');
  assert.equal(negotiateFormat('Application/OpenMetrics-Text; Version="1.0.0"'), 'openmetrics', 'case-insensitive type and names, quoted value');
  assert.equal(negotiateFormat('application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited'), 'text', 'no protobuf: the text format');
});
