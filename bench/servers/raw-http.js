// Reference: a raw node:http handler answering GET /api/alarms with the same JSON as Tusk's
// GET /api/alarms for an instance with its four default alarms (serialised per request, as a server does).
// Usage: node bench/servers/raw-http.js PORT
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const alarms = JSON.parse(readFileSync(new URL('./alarms.json', import.meta.url), 'utf8'));
const port = Number(process.argv[2] ?? 4031);

createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/api/alarms') {
    const body = JSON.stringify(alarms);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":"Not found"}');
}).listen(port, '127.0.0.1', () => console.log(`raw-http: listening on ${port}`));

// A clean exit on SIGTERM/SIGINT (lets node --cpu-prof write its profile).
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => process.exit(0));
