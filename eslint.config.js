// Lint for the exporter, CLIs, tests, benchmarks and scripts: typescript-eslint's strict, type-aware rules
// (the .js/.mjs files without the type-aware ones).
// The Grafana plugin has its own configuration (grafana-plugin/eslint.config.mjs).
// Departures from `strictTypeChecked`, each on purpose:
//   - numbers and booleans may appear in template strings (messages and label values print
//     them; String() around each would only add noise);
//   - node:test's test()/describe()/it() return promises the runner itself awaits;
//   - `() => void expr` shorthands in callbacks are fine, and so is `return this.reject(...)` as an
//     early exit from a method that itself returns void (the idiom of the parsers and guards);
//   - a variable named `_x` is unused on purpose, and a rest sibling drops the fields it names;
//   - a caught value (`unknown`) may be thrown again as it was, after cleaning up;
//   - the byte scanners and parallel-array loops of the Lustre hot path may use `!`: they index
//     within the bounds they have just tested, and a branch per element would cost in the hottest loop;
//   - tests and benchmarks may use `!` on values they have just produced (a wrong guess fails the test),
//     and may walk parsed JSON (Mistral records, dashboards, API answers) as `any`: a wrong path fails an assertion.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const nodeTest = ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'].map((name) => ({
  from: 'package',
  package: 'node:test',
  name,
}));

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'grafana-plugin/', 'native/**/build/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: nodeTest }],
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
    },
  },
  {
    files: [
      'exporter/src/parsers/lustre-jobstats.ts',
      'exporter/src/lustre/entry-tracker.ts',
      'exporter/src/lustre/export-fields.ts',
      // the per-job render and the rate density: typed-array loops over every exported job at each scrape
      'exporter/src/lustre/rate-density.ts',
      'exporter/src/collectors/lustre_jobstats_series.ts',
      'exporter/src/collectors/lustre_jobstats_density.ts',
    ],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // The JavaScript files (the CLI launcher, build and test runners, benchmark workers): the same rules
  // without type information, which plain JavaScript does not carry; Node's globals.
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.node } },
  },
  { files: ['bin/*.js', '**/*.cjs'], languageOptions: { sourceType: 'commonjs' }, rules: { '@typescript-eslint/no-require-imports': 'off' } },
);
