#!/usr/bin/env node
// The output plug-in that sends `jobio run`'s records to VictoriaMetrics (docs/jobio-run.md, "Output
// plug-ins"): name it in a Mistral configuration's `plugin.path`. Compiled to dist/ by `npm run build`.
'use strict';
const { join } = require('node:path');

import(join(__dirname, '..', 'dist', 'plugin', 'victoriametrics-plugin.js'))
  .then(({ main }) => main(process.argv.slice(2)))
  .then((code) => {
    process.exitCode = code;
  });
