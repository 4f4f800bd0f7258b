#!/usr/bin/env node
// The `tusk` command. Runs the compiled CLI (npm run build writes dist/).
import { main } from '../dist/src/cli.js';

await main(process.argv.slice(2));
