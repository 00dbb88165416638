// Lint for the exporter, CLIs, tests and benchmarks: typescript-eslint's strict, type-aware rules.
// The Grafana plugin has its own configuration (grafana-plugin/eslint.config.mjs).
// Departures from `strictTypeChecked`, each on purpose:
//   - numbers and booleans may appear in template strings (messages and label values print
//     them; String() around each would only add noise);
//   - node:test's test()/describe()/it() return promises the runner itself awaits;
//   - `() => void expr` shorthands in callbacks are fine;
//   - tests and benchmarks may use `!` on values they have just produced (a wrong guess fails the test).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeTest = ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'].map((name) => ({
  from: 'package',
  package: 'node:test',
  name,
}));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'grafana-plugin/', 'native/**/build/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: nodeTest }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
