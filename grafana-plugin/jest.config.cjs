// jest for the plugin: swc transforms TypeScript/TSX and the ESM-only dependencies (d3-color ships .mjs).
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }];

module.exports = {
  testEnvironment: 'jsdom',
  roots: ['<rootDir>/src'],
  setupFiles: ['jest-canvas-mock'],
  setupFilesAfterEnv: ['<rootDir>/jest.setup.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': swc,
    '^.+\\.mjs$': swc,
  },
  transformIgnorePatterns: ['node_modules/(?!(d3-[a-z-]+|internmap|ol|marked|@grafana/[a-z-]+)/)'],
  moduleNameMapper: {
    '\\.(css|scss)$': '<rootDir>/src/test-utils/style-mock.ts',
  },
  testTimeout: 20000,
};
