#!/usr/bin/env node
// The `tusk` command. Runs the compiled CLI, bundled into one file and started with V8's code cache
// for a fast start (npm run build writes dist/tusk.cjs and its cache from dist/src/cli.js; see
// scripts/bundle-cli.js and bin/bundle-loader.js).
import { loadBundle } from './bundle-loader.js';

await loadBundle().exports.main(process.argv.slice(2));
