// `tusk import`'s reading client and parsers (issue 46): it refuses every method but GET in code,
// waits out a 429 for its Retry-After and asks again, keeps the source's time from the Date header;
// the interfaces' time and duration forms and the audit log's Extras read back to what they were.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Source, SourceError, retryAfterMs } from '../../src/import/source.js';
import { parseDuration, parseExtras, parseTime } from '../../src/import/values.js';
import { parseAuditCsv } from '../../src/import/account.js';

/** A server answering from a list of (status, headers, body), one per request, and recording the methods. */
async function scripted(answers: { status: number; headers?: Record<string, string>; body?: string }[]) {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    methods.push(req.method!);
    const a = answers.shift() ?? { status: 200, body: '[]' };
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.body ?? '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, methods };
}

describe('Source', () => {
  it('sends GET only: any other method is refused before a request leaves', async () => {
    const target = await scripted([]);
    const source = new Source({ customerUrl: target.url, instanceUrl: target.url, apiKey: 'k', log: () => {} });
    const send = (
      source as unknown as { send: (m: string, api: string, path: string, key: string) => Promise<unknown> }
    ).send.bind(source);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'])
      await expect(send(method, 'customer', '/api/instances', 'k')).rejects.toThrow(/GET requests only/);
    expect(target.methods).toEqual([]);
    await source.get('customer', '/api/instances');
    expect(target.methods).toEqual(['GET']);
  });

  it('waits out a 429 for its Retry-After, then asks again; keeps the Date header as the source time', async () => {
    const target = await scripted([
      { status: 429, headers: { 'retry-after': '2' }, body: '{"error":"Too many requests"}' },
      { status: 429, headers: { 'retry-after': new Date(Date.now() + 3000).toUTCString() } },
      { status: 200, headers: { date: 'Wed, 01 Jan 2031 00:00:00 GMT' }, body: '[{"id":1}]' },
    ]);
    const waits: number[] = [];
    const lines: string[] = [];
    const source = new Source({
      customerUrl: target.url,
      instanceUrl: target.url,
      apiKey: 'k',
      log: (l) => lines.push(l),
      sleep: async (ms) => void waits.push(ms),
    });
    expect(await source.json('customer', '/api/instances')).toEqual([{ id: 1 }]);
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeGreaterThan(1000);
    expect(waits[1]).toBeLessThanOrEqual(3000);
    expect(source.rateLimited).toBe(2);
    expect(lines.join('\n')).toMatch(/429; again in 2 s \(Retry-After\)/);
    expect(source.now).toBe(Date.parse('2031-01-01T00:00:00Z'));
    expect(target.methods).toEqual(['GET', 'GET', 'GET']);
  });

  it('gives up after its attempts, and names the read that failed', async () => {
    const target = await scripted(Array.from({ length: 3 }, () => ({ status: 503 })));
    const source = new Source({
      customerUrl: target.url,
      instanceUrl: target.url,
      apiKey: 'k',
      log: () => {},
      sleep: async () => {},
      attempts: 3,
    });
    const err = await source.json('customer', '/api/team').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceError);
    expect((err as SourceError).status).toBe(503);
    expect((err as Error).message).toMatch(/customer GET \/api\/team answered 503 3 times/);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMs('1')).toBe(1000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });
});

describe("the interfaces' forms", () => {
  it('reads every time form the documents write', () => {
    const t = Date.UTC(2026, 10, 28, 3, 27, 0);
    expect(parseTime('2026-11-28 03:27:00+0000')).toBe(t);
    expect(parseTime('2026-11-28 03:27:00 +0000')).toBe(t);
    expect(parseTime('2026-11-28 03:27:00 UTC')).toBe(t);
    expect(parseTime('2026-11-28T04:27:00+01:00')).toBe(t);
    expect(parseTime('2026-11-28T03:27:00.000Z')).toBe(t);
    expect(parseTime('yesterday')).toBeNaN();
    expect(parseDuration('30 minutes')).toBe(30);
    expect(parseDuration('1 hour')).toBe(60);
    expect(parseDuration('2 hours 15 minutes')).toBe(135);
    expect(parseDuration('soon')).toBeNaN();
  });

  it("reads the audit log's Extras so that writing them again gives the text back", () => {
    for (const text of [
      '',
      'instance_id = 1, name = a, b',
      'role = billing manager, comment = Finance, exports, q = x = y',
    ]) {
      const pairs = parseExtras(text)!;
      expect(pairs.map(([k, v]) => `${k} = ${v}`).join(', ')).toBe(text);
    }
    expect(parseExtras('no pairs here')).toBeUndefined();
    const csv = parseAuditCsv(
      'Timestamp,Event,Source,User,Extras\r\n2026-11-28 07:37:28 UTC,apikey.rotate,api,a@b.example,"role = admin, comment = x"\r\nbad,row,,,\r\n',
    );
    expect(csv.rows).toEqual([
      {
        at: Date.UTC(2026, 10, 28, 7, 37, 28),
        event: 'apikey.rotate',
        source: 'api',
        user: 'a@b.example',
        extras: [
          ['role', 'admin'],
          ['comment', 'x'],
        ],
      },
    ]);
    expect(csv.unreadable).toBe(1);
  });
});
