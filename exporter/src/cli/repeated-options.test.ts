import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command, Option } from 'commander';
import { repeatedOption } from './repeated-options.js';

function command(): Command {
  return new Command('x')
    .addOption(new Option('-o, --output <file>', 'Output file.'))
    .addOption(new Option('--once', 'One table.'))
    .addOption(new Option('--exporter <url>', 'An exporter (repeatable).'))
    .addOption(new Option('--collector.gpu', 'Enable.'))
    .addOption(new Option('--no-collector.gpu', 'Disable.'));
}

test('repeatedOption: the same flag twice, in any spelling, is named', () => {
  assert.equal(repeatedOption(command(), ['--output', 'a', '--output=b']), "option '--output' given more than once (it takes one value)");
  assert.equal(repeatedOption(command(), ['-o', 'a', '-ob']), "option '--output' given more than once (it takes one value)");
  assert.equal(repeatedOption(command(), ['--once', '--once']), "option '--once' given more than once");
  assert.equal(repeatedOption(command(), ['--no-collector.gpu', '--collector.gpu']), "options '--no-collector.gpu' and '--collector.gpu' contradict each other (give one)");
});

test('repeatedOption: repeatable flags, values that look like flags and the command after -- or the first operand are not counted', () => {
  assert.equal(repeatedOption(command(), ['--exporter', 'http://a', '--exporter', 'http://b']), undefined);
  assert.equal(repeatedOption(command(), ['--output', '--once', '--once']), undefined);
  assert.equal(repeatedOption(command(), ['--once', '--', 'cmd', '--once']), undefined);
  assert.equal(repeatedOption(command(), ['-o', 'a', 'cmd', '-o', 'b']), undefined);
  assert.equal(repeatedOption(command(), ['--bogus', '--bogus']), undefined, 'unknown flags are commander’s to refuse');
});
