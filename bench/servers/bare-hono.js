// Reference: a bare Hono route on @hono/node-server answering GET /api/alarms with the same JSON as
// Tusk's GET /api/alarms for an instance with its four default alarms. No auth, no validation, no state.
// Usage: node bench/servers/bare-hono.js PORT
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const alarms = JSON.parse(readFileSync(new URL('./alarms.json', import.meta.url), 'utf8'));
const port = Number(process.argv[2] ?? 4030);

const app = new Hono();
app.get('/api/alarms', (c) => c.json(alarms));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => console.log(`bare-hono: listening on ${port}`));

// A clean exit on SIGTERM/SIGINT (lets node --cpu-prof write its profile).
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => process.exit(0));
