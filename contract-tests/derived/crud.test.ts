// Generated from the documents: every kind of resource that can be created and deleted (per tag,
// a `create` and a `delete` operation; derive.ts) is created from the document's request example,
// read back (its `get` operation and its `list`), deleted, and then every operation on it gives
// 404. Only resources the suite created are touched; they are deleted after the file.
import { describe, it } from 'vitest';
import { Contract, ContractViolation, useContract } from '../harness/index.js';
import { baseBody, bodyShape, itemParams, resourcePairs } from './derive.js';
import { idOf, Resources, type Created } from './support.js';

const contract = await Contract.load();
const t = useContract();
const resources = new Resources(t);

/** Fields we sent that the read-back resource shows at its top level must come back unchanged. */
function expectSameFields(created: Created, item: Record<string, unknown>, operation: string) {
  for (const [k, v] of Object.entries(created.body)) {
    if (v === null || typeof v === 'object' || !(k in item)) continue;
    if (item[k] !== v) {
      throw new ContractViolation(
        operation,
        [`read back, ${k} is ${JSON.stringify(item[k])} but the resource was created with ${JSON.stringify(v)}`],
        created.response,
        {
          expected: `${k} = ${JSON.stringify(v)}`,
        },
      );
    }
  }
}

const stateless =
  'the target does not keep what it was told (a stateless mock cannot pass this check; it needs a stateful deployment)';
const needsState = '(a stateless mock cannot pass this check; it needs a stateful deployment)';

for (const pair of resourcePairs(contract)) {
  describe(`${pair.api} ${pair.tag}: create, read back, delete`, () => {
    it(`a resource created with ${pair.create.operationId} can be read back${pair.read ? ` with ${pair.read.operationId}` : ''}${pair.list ? ` and is listed by ${pair.list.operationId}` : ''}`, async () => {
      const created = await resources.create(pair);
      if (pair.read) {
        const res = await resources.call(pair.read, {
          params: itemParams(contract, pair.read, created.id, created.system),
        });
        t.api.expectStatus(res, 200, `reading back the resource just created (id ${created.id}): ${stateless}`);
        const got = idOf(res.body as Record<string, unknown>);
        if (got !== created.id) {
          throw new ContractViolation(
            `${pair.api} ${pair.read.operationId}`,
            [
              `read back, the resource has the id ${JSON.stringify(got)}, not the id ${created.id} it was created with: ${stateless}`,
            ],
            res,
            {
              request: {
                method: 'GET',
                path: t.api.url(
                  pair.api,
                  pair.read.operationId,
                  itemParams(contract, pair.read, created.id, created.system),
                ).path,
              },
              expected: `the resource with id ${created.id}`,
            },
          );
        }
        expectSameFields(created, res.body as Record<string, unknown>, `${pair.api} ${pair.read.operationId}`);
      }
      if (pair.list) {
        const items = (await resources.list(pair)) ?? [];
        const item = items.find((i) => idOf(i) === created.id);
        if (!item) {
          throw new ContractViolation(
            `${pair.api} ${pair.list.operationId}`,
            [`the resource just created (id ${created.id}) is not listed: ${stateless}`],
            created.response,
            { expected: `a list with id ${created.id}` },
          );
        }
        expectSameFields(created, item, `${pair.api} ${pair.list.operationId}`);
      }
    });

    it(`after ${pair.remove.operationId}, every operation on the resource gives 404 (${pair.itemOps.map((o) => o.operationId).join(', ')})`, async () => {
      const created = await resources.create(pair);
      const del = await resources.call(pair.remove, {
        params: itemParams(contract, pair.remove, created.id, created.system),
      });
      t.api.expectStatus(del, '2XX', 'deleting a resource the suite created');
      for (const op of pair.itemOps) {
        const shape = bodyShape(contract, op);
        const res = await resources.call(op, {
          params: itemParams(contract, op, created.id, created.system),
          ...(shape ? { body: baseBody(contract, shape, { system: created.system }) } : {}),
        });
        t.api.expectStatus(res, 404, `the resource was deleted (id ${created.id}) ${needsState}`);
      }
      if (pair.list) {
        const items = (await resources.list(pair)) ?? [];
        if (items.some((i) => idOf(i) === created.id)) {
          throw new ContractViolation(
            `${pair.api} ${pair.list.operationId}`,
            [`the deleted resource (id ${created.id}) is still listed ${needsState}`],
            del,
            {
              expected: `a list without id ${created.id}`,
            },
          );
        }
      }
    });
  });
}
