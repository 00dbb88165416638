// Lint for the plugin's sources: Grafana's own shared configuration (the one its plugin template uses).
// The exporter has its own configuration (../eslint.config.js).
import grafanaConfig from '@grafana/eslint-config';

export default [
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  ...grafanaConfig,
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      // Props are typed by TypeScript (PanelProps and friends); runtime PropTypes would repeat the types.
      'react/prop-types': 'off',
    },
  },
];
