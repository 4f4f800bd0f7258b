// Reference for the heavy reads (issue 20): a bare Hono route per path answering the bytes Tusk
// sent for it in the same run, with Tusk's content type: the physical limit of serving those bytes
// on this machine (no auth, no validation, no state, nothing computed).
// Usage: node bench/servers/same-bytes.js PORT BODIES.json   (BODIES: {"/path": {"type": "...", "body": "..."}})
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';

const port = Number(process.argv[2] ?? 4031);
const bodies = JSON.parse(readFileSync(process.argv[3], 'utf8'));
const app = new Hono();
app.get('/api/alarms', (c) => c.json([]));
for (const [path, { type, body }] of Object.entries(bodies)) {
  const bytes = Buffer.from(body);
  app.get(path, (c) => c.body(bytes, 200, { 'content-type': type }));
}
serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => console.log(`same-bytes: listening on ${port}`));
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => process.exit(0));
