// jest for the plugin: swc transforms TypeScript/TSX and the ESM-only dependencies (d3-color ships .mjs).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }];

const ESM_PACKAGES = [
  '@grafana/react-data-grid', '@wojtekmaj', '@tanstack', '@leeoniya', '@codemirror', '@lezer', '@uiw', '@marijn', '@swc/helpers',
  'd3-[a-z-]+', 'internmap', 'ol', 'marked', 'marked-mangle', 'react-calendar', 'get-user-locale', 'memoize', 'mimic-function',
  'react-loading-skeleton', 'compute-scroll-into-view', 'uwrap', 'rbush', 'quickselect', 'earcut', 'pbf', 'geotiff', 'zstddec',
  'web-worker', 'date-fns', 'crelt', 'style-mod', 'w3c-keyname', 'stylis', 'web-vitals', 'quick-lru', 'zod', 'uuid',
];

module.exports = {
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/src'],
  setupFiles: ['jest-canvas-mock'],
  setupFilesAfterEnv: ['<rootDir>/jest.setup.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': swc,
    '^.+\\.mjs$': swc,
  },
  // ESM-only packages reached from @grafana/ui's CJS build are compiled too; everything else is not.
  transformIgnorePatterns: [`node_modules/(?!(${ESM_PACKAGES.join('|')})/)`],
  moduleNameMapper: {
    '\\.(css|scss)$': '<rootDir>/src/test-utils/style-mock.ts',
    // The characterisation is shared with `jobio report` (../exporter/src/analysis): Node ESM, whose relative imports name
    // the compiled `.js`; the TypeScript source beside them is what runs here.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testTimeout: 20000,
};
