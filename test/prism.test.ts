// The documents work with the ecosystem's standard mock: `prism mock` (Prism 5.14.2) serves each
// bundled document, and every operation called once with a request built from the document's own
// examples gets a response that the document declares.
import { freePort } from '../src/core/net.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { PROJECT_ROOT, BUNDLE_DIR, writeBundle, INTERFACES, type InterfaceName } from '../src/openapi/documents.js';
import { Contract } from '../contract-tests/harness/contract.js';
import type { OperationInfo } from '../src/openapi/operations.js';
import { formEncode } from '../contract-tests/harness/client.js';
import { start, type Started } from './support/processes.js';

/** `prism mock FILE` on a free port, once it listens; the caller's afterAll stops it (also when this fails). */
async function startPrism(file: string, started: Started[]): Promise<{ url: string; proc: Started }> {
  const port = await freePort();
  const proc = start(join(PROJECT_ROOT, 'node_modules', '.bin', 'prism'), [
    'mock',
    file,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--errors',
  ]);
  started.push(proc);
  await proc.until(/Prism is listening/, 45_000);
  return { url: `http://127.0.0.1:${port}`, proc };
}

function exampleOf(schema: Record<string, unknown> | undefined): unknown {
  return schema?.example ?? (Array.isArray(schema?.examples) ? schema.examples[0] : undefined);
}

function requestFor(contract: Contract, op: OperationInfo) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = op.parameters.find((x) => x.in === 'path' && x.name === name)!;
    return encodeURIComponent(String(exampleOf(p.schema) ?? 1));
  });
  const query: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'query' && x.required))
    query[p.name] = String(exampleOf(p.schema));
  const raw = (op.raw.requestBody ?? undefined) as unknown;
  let body: { type: string; text: string } | undefined;
  if (raw && op.body) {
    const json = op.body.media.find((m) => m.mediaType === 'application/json');
    const node = (contract.documents[op.api].paths[op.path]![op.method] as { requestBody: unknown })
      .requestBody as Record<string, unknown>;
    const content = ((node.$ref ? undefined : node.content) ?? {}) as Record<string, { example?: unknown }>;
    const example = content['application/json']?.example ?? exampleOf(json?.schema);
    if (example !== undefined) body = { type: 'application/json', text: JSON.stringify(example) };
    else {
      const form = content['application/x-www-form-urlencoded']?.example;
      if (form !== undefined)
        body = { type: 'application/x-www-form-urlencoded', text: formEncode(form as Record<string, unknown>) };
    }
  }
  return { path, query, body };
}

describe.each(INTERFACES.map((n) => [n] as [InterfaceName]))('prism mock of the %s document', (api) => {
  let prism: { url: string; proc: Started };
  let contract: Contract;
  const started: Started[] = [];

  beforeAll(async () => {
    contract = await Contract.load();
    await writeBundle(api);
    prism = await startPrism(join(BUNDLE_DIR, `${api}.yaml`), started);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
  });

  it("answers every operation, called with the document's examples, with a response the document declares", async () => {
    const failures: string[] = [];
    for (const op of contract.operations[api].values()) {
      const { path, query, body } = requestFor(contract, op);
      const agent = request(prism.url) as unknown as Record<string, (p: string) => request.Test>;
      let req = agent[op.method]!(path).query(query).auth('', 'prism-smoke-key');
      if (body) req = req.set('Content-Type', body.type).send(body.text);
      const res = await req;
      if (res.status >= 300) failures.push(`${op.operationId}: ${res.status} ${res.text.slice(0, 300)}`);
      else failures.push(...contract.violations(api, op.operationId, res).map((v) => `${op.operationId}: ${v}`));
    }
    expect(failures).toEqual([]);
  }, 60_000);
});
