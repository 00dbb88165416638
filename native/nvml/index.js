// Loader of the NVML addon (built by `npm run build` into build/Release). Kept tiny: the typed
// surface is index.d.ts, argument checks live in the addon itself.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const addon = require('./build/Release/jobio_nvml.node');

export const Nvml = addon.Nvml;
