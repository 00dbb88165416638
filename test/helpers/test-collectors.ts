// Collectors built to misbehave, for tests of the scrape framework: one that works, one that throws,
// one that hangs past any deadline, one whose source is absent.
import type { CollectorDescriptor } from '../../exporter/src/scrape/collector.js';
import { defineFlags, positiveIntegerFlag } from '../../exporter/src/scrape/flags.js';

const workingFlags = defineFlags({ step: positiveIntegerFlag('step', 1, 'Increment per update.') });

export const workingCollector: CollectorDescriptor = {
  name: 'working',
  help: 'Always succeeds; counts its updates.',
  defaultEnabled: true,
  flags: workingFlags.list,
  create({ registry, options }) {
    let updates = 0;
    registry.register({ name: 'jobio_working_updates_total', help: 'Updates so far.', type: 'counter', collect: (sink) => sink.sample({}, updates) });
    const { step } = workingFlags.read(options);
    return {
      update() {
        updates += step;
        return Promise.resolve('ok');
      },
    };
  },
};

export const failingCollector: CollectorDescriptor = {
  name: 'failing',
  help: 'Always throws.',
  defaultEnabled: true,
  flags: [],
  create({ registry }) {
    let value = 0;
    registry.register({ name: 'jobio_failing_value', help: 'Never served.', type: 'gauge', collect: (sink) => sink.sample({}, value) });
    return {
      update() {
        value = 1;
        return Promise.reject(new Error('source exploded'));
      },
    };
  },
};

export const hangingCollector: CollectorDescriptor = {
  name: 'hanging',
  help: 'Never finishes.',
  defaultEnabled: true,
  flags: [],
  create() {
    let calls = 0;
    return {
      update() {
        calls += 1;
        if (calls > 1) throw new Error('update called again while the first one still hangs');
        return new Promise(() => undefined);
      },
    };
  },
};

export const absentCollector: CollectorDescriptor = {
  name: 'absent',
  help: 'Its source does not exist here.',
  defaultEnabled: false,
  flags: [],
  create() {
    return { update: () => Promise.resolve('absent') };
  },
};
