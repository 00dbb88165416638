// Lean production build: one AMD module per plugin (app, nested panel, nested data source), with the
// libraries Grafana shares with plugins left external so the host's single copies are used.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Modules Grafana's loader provides to plugins (never bundled): all shared since before Grafana 11.0.
 * Not react/jsx-runtime: JSX compiles to React.createElement (classic transform below), so Grafana
 * versions that do not share the JSX runtime load the modules too.
 */
export const EXTERNALS = ['react', 'react-dom', '@grafana/data', '@grafana/ui', '@grafana/runtime', '@emotion/css', 'rxjs'];

export const ENTRIES = {
  module: './src/module.ts',
  'panel/module': './src/panel/module.ts',
  'datasource/module': './src/datasource/module.ts',
};

export default function config(mode = 'production') {
  return {
    mode,
    context: root,
    target: 'web',
    entry: ENTRIES,
    devtool: 'source-map',
    output: {
      path: resolve(root, 'dist'),
      filename: '[name].js',
      library: { type: 'amd' },
      uniqueName: 'jobio-jobio-app',
      clean: true,
    },
    externals: EXTERNALS,
    // `.js` → `.ts` first: the characterisation is shared with `jobio report` (../exporter/src/analysis), Node ESM whose
    // relative imports name the compiled `.js`.
    resolve: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.jsx'], extensionAlias: { '.js': ['.ts', '.js'] } },
    module: {
      rules: [
        {
          test: /\.tsx?$/,
          exclude: /node_modules/,
          use: {
            loader: 'swc-loader',
            options: {
              jsc: {
                parser: { syntax: 'typescript', tsx: true },
                transform: { react: { runtime: 'classic' } },
                target: 'es2020',
              },
            },
          },
        },
      ],
    },
    performance: { hints: false },
    stats: 'errors-warnings',
  };
}
