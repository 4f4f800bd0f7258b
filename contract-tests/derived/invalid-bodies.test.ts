// Generated from the documents: for every operation with a request body, bodies that break the
// body schema (each required field missing, each enum violated, each field of the wrong type;
// derive.ts builds them from the document's request example) are rejected with 400 whose body
// names the field, a JSON array instead of the body object is rejected with 400, and none of them
// changes anything (the resources' list is the same before and after).
// Operations on one resource address a resource the suite created itself.
import type { Response } from 'supertest';
import { describe, it } from 'vitest';
import type { OperationInfo } from '../../src/openapi/operations.js';
import { INTERFACES } from '../../src/openapi/documents.js';
import { Contract, ContractViolation, useContract } from '../harness/index.js';
import {
  baseBody,
  bodyShape,
  itemParams,
  mutations,
  namesField,
  pathParams,
  resourcePairs,
  tagOf,
  validBody,
  verbOf,
  type BodyShape,
} from './derive.js';
import { idOf, itemsOf, Resources } from './support.js';

const contract = await Contract.load();
const t = useContract();
const resources = new Resources(t);
const pairs = resourcePairs(contract);

interface Prepared {
  params: Record<string, string | number>;
  base: Record<string, unknown>;
  system?: string;
  listOp?: OperationInfo;
  before?: Response;
  skip?: string;
}

const listOf = (op: OperationInfo) =>
  [...contract.operations[op.api].values()].find(
    (o) => tagOf(o) === tagOf(op) && verbOf(o) === 'list' && o.method === 'get' && pathParams(o).length === 0,
  );

/**
 * A list as compared before and after the rejected requests. Links lose their query string: a
 * deployment may sign a link at each read (a backup's `url` is a "signed, time-limited download
 * link", whose expiry moves with the time of the read), and that is no change of state.
 */
const comparable = (body: unknown): string =>
  JSON.stringify(body, (_key, value: unknown) =>
    typeof value === 'string' && /^https?:\/\/[^?\s]+\?/.test(value) ? value.slice(0, value.indexOf('?')) : value,
  );

async function snapshot(listOp: OperationInfo | undefined): Promise<Response | undefined> {
  if (!listOp) return undefined;
  const res = await resources.call(listOp);
  t.api.expectStatus(res, 200);
  return res;
}

async function prepare(op: OperationInfo, shape: BodyShape): Promise<Prepared> {
  const pair = pairs.find((p) => p.api === op.api && p.tag === tagOf(op));
  const listOp = listOf(op);
  let params: Record<string, string | number> = {};
  let system: string | undefined;
  let values: Record<string, unknown> | undefined;
  if (pair) {
    const own = await resources.ownResource(pair);
    system = own.system;
    values = own.body;
    if (pathParams(op).length) params = itemParams(contract, op, op === pair.create ? 0 : own.id, own.system);
  } else if (op.api === 'customer' && pathParams(op).length === 1 && pathParams(op)[0]!.name === 'user_id') {
    // A team member is created by invitation, not by a create operation: invite one of our own.
    params = { user_id: await resources.ownTeamMember() };
  } else if (pathParams(op).length) {
    // Everything on the instance interface belongs to the suite's own instance: address the first
    // listed resource of the tag.
    if (op.api === 'customer' || !listOp)
      return { params, base: {}, skip: `no ${tagOf(op)} resource of the suite's own to address` };
    const items = itemsOf(await resources.call(listOp));
    const id = idOf(items[0]);
    if (id === undefined) return { params, base: {}, skip: `the suite's own instance has no ${tagOf(op)} resource` };
    params = itemParams(contract, op, id);
  } else if (op.api === 'instance') await resources.ownInstance();
  const base = baseBody(contract, shape, { system, values });
  return {
    params,
    base,
    ...(system !== undefined ? { system } : {}),
    ...(listOp ? { listOp, before: await snapshot(listOp) } : {}),
  };
}

/** A body accepted by mistake: remove what it created (after the file), before the test reports it. */
function removeCreated(op: OperationInfo, res: Response, system: string | undefined): void {
  const pair = pairs.find((x) => x.create === op);
  const id = idOf(res.body as Record<string, unknown>);
  if (pair && id !== undefined)
    t.cleanup(() =>
      resources.call(pair.remove, { params: itemParams(contract, pair.remove, id, system), unchecked: true }),
    );
}

for (const api of INTERFACES) {
  for (const op of contract.operations[api].values()) {
    const shape = bodyShape(contract, op);
    if (!shape) continue;
    const planned = mutations(contract, shape, baseBody(contract, shape));
    if (planned.length === 0) continue;
    describe(`${api} ${op.operationId} (${op.method.toUpperCase()} ${op.path}): invalid bodies`, () => {
      let prepared: Promise<Prepared> | undefined;
      const ready = () => (prepared ??= prepare(op, shape));

      for (const m of planned) {
        it(`a body ${m.what}: 400 naming ${m.field}`, async ({ skip }) => {
          const p = await ready();
          if (p.skip) return skip(p.skip);
          const variant = mutations(contract, shape, p.base, p.system).find(
            (x) => x.kind === m.kind && x.field === m.field,
          );
          if (!variant) return skip(`with the values of the suite's own resource the body ${m.what} is valid`);
          const res = await resources.call(op, { params: p.params, body: variant.body });
          if (res.status < 300) removeCreated(op, res, p.system);
          t.api.expectStatus(res, 400, `a body ${m.what} (${JSON.stringify(variant.body)})`);
          if (!namesField(res.body, m.field)) {
            throw new ContractViolation(
              `${api} ${op.operationId}`,
              [`the 400 body does not name the field ${m.field}: ${res.text.slice(0, 200)}`],
              res,
              {
                request: { method: op.method, path: t.api.url(api, op.operationId, p.params).path },
                expected: `400 naming ${m.field}`,
              },
            );
          }
        });
      }

      // Every body of the documents is an object: a JSON array (of a valid body) is a 400. Which
      // field such a 400 names is not said, so only the status is checked.
      if (!validBody(contract, shape, [baseBody(contract, shape)])) {
        it('a body that is a JSON array, not an object: 400', async ({ skip }) => {
          const p = await ready();
          if (p.skip) return skip(p.skip);
          const res = await resources.call(op, { params: p.params, body: [p.base] });
          if (res.status < 300) removeCreated(op, res, p.system);
          t.api.expectStatus(res, 400, `a JSON array as the body ([${JSON.stringify(p.base)}])`);
        });
      }

      it('the rejected bodies changed nothing', async ({ skip }) => {
        const p = await ready();
        if (p.skip) return skip(p.skip);
        if (!p.listOp) return skip(`no list operation shows ${tagOf(op)} resources`);
        const after = (await snapshot(p.listOp))!;
        if (comparable(after.body) !== comparable(p.before?.body)) {
          throw new ContractViolation(
            `${api} ${p.listOp.operationId}`,
            [
              `after ${planned.length} rejected ${op.operationId} requests the list changed:\n      before ${JSON.stringify(p.before?.body).slice(0, 400)}\n      after  ${JSON.stringify(after.body).slice(0, 400)}`,
            ],
            after,
            {
              request: { method: 'GET', path: t.api.url(api, p.listOp.operationId).path },
              expected: 'the same list as before',
            },
          );
        }
      });
    });
  }
}
