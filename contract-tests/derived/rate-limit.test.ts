// Rate limiting on both interfaces: a key over its limit gets 429 with Retry-After (the harness
// checks the header and the Error body). In-process, this file's reference implementation admits
// 5 requests per minute and key. Against a deployment, whose limit is its own, the test sends at
// most MAX_REQUESTS requests with one key, CONCURRENCY at a time, and fails with a clear message
// when none of them gets 429; afterwards it waits out Retry-After so that later files are not
// limited. The operation hammered is the first one of the document that reads without parameters.
// The requests go through fetch (kept-alive connections: many more requests per second than the
// harness's supertest client); the 429 and any other answer are checked against the document.
import { describe, it } from 'vitest';
import type { InterfaceName } from '../../src/openapi/documents.js';
import { Contract, ContractViolation, createInstance, recordObserved, useContract } from '../harness/index.js';
import type { ResponseLike } from '../harness/contract.js';
import { pathParams } from './derive.js';
import { sleep } from './support.js';

const MAX_REQUESTS = 5000;
const CONCURRENCY = 100;

const contract = await Contract.load();
const t = useContract({ rateLimit: '5/60' });

const cheapRead = (api: InterfaceName) => {
  const op = [...contract.operations[api].values()].find((o) => o.method === 'get' && pathParams(o).length === 0 && !o.parameters.some((p) => p.required) && o.responses.has('429'));
  if (!op) throw new Error(`the ${api} document has no read operation without parameters that declares 429`);
  return op;
};

async function get(url: string, key: string): Promise<ResponseLike> {
  const res = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` } });
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

async function hammer(api: InterfaceName, key: string): Promise<void> {
  const op = cheapRead(api);
  const { base, path } = t.api.url(api, op.operationId);
  const request = { method: 'GET', path };
  const started = Date.now();
  let sent = 0;
  let limited: ResponseLike | undefined;
  while (!limited && sent < MAX_REQUESTS) {
    const wave = Math.min(t.target.inProcess ? 1 : CONCURRENCY, MAX_REQUESTS - sent);
    sent += wave;
    const responses = await Promise.all(Array.from({ length: wave }, () => get(base + path, key)));
    limited = responses.find((r) => r.status === 429);
    const other = responses.find((r) => r.status !== 429 && (r.status < 200 || r.status >= 300));
    if (other) {
      contract.check(api, op.operationId, other, request);
      throw new ContractViolation(`${api} ${op.operationId}`, [`a valid request while hammering the rate limit: expected 2XX or 429, got ${other.status}`], other, { request, expected: '2XX or 429' });
    }
  }
  if (!limited) {
    throw new ContractViolation(`${api} ${op.operationId}`, [`no 429 after ${sent} requests with one key in ${Date.now() - started} ms (${CONCURRENCY} at a time): the target's rate limit is higher than this test can reach, or absent`], { status: 200, headers: {}, text: '' }, {
      request: { method: 'GET', path: `${base}${path}` },
      expected: '429 with Retry-After once the key is over its limit',
    });
  }
  // Retry-After and the Error body, as the document declares them.
  contract.check(api, op.operationId, limited, request);
  recordObserved({ api, operationId: op.operationId, status: 429 });
  if (!t.target.inProcess) await sleep(Math.min(60, Number(limited.headers['retry-after']) || 1) * 1000 + 200);
}

describe('rate limiting (429 with Retry-After)', () => {
  it('the instance interface answers 429 once an instance key is over its limit', async () => {
    const { apikey } = await createInstance(t);
    await hammer('instance', apikey);
  }, 180_000);

  it('the customer interface answers 429 once a key is over its limit', async () => {
    await hammer('customer', t.target.apiKey);
  }, 180_000);
});
