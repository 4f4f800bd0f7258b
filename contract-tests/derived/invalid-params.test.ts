// Generated from the documents: every path or query parameter that has a rule (a type, a format,
// a pattern, an enum, bounds) is sent once with a value that breaks it, and every required query
// parameter once left out; each request gets 400 whose body names the parameter. The other
// parameters and the body are valid, so only the broken parameter can be at fault.
import { describe, it } from 'vitest';
import { INTERFACES } from '../../src/openapi/documents.js';
import { Contract, ContractViolation, useContract } from '../harness/index.js';
import { baseBody, bodyShape, namesField, parameterMutations, probeParams } from './derive.js';
import { Resources } from './support.js';

const contract = await Contract.load();
const t = useContract();
const resources = new Resources(t);

for (const api of INTERFACES) {
  describe(`${api} interface: invalid parameters`, () => {
    for (const op of contract.operations[api].values()) {
      const variants = [
        ...parameterMutations(contract, op).map((m) => ({
          name: m.param.name,
          in: m.param.in,
          value: m.value as string | undefined,
          what: m.what,
        })),
        ...op.parameters
          .filter((p) => p.in === 'query' && p.required)
          .map((p) => ({
            name: p.name,
            in: p.in,
            value: undefined,
            what: `the required query parameter ${p.name} left out`,
          })),
      ];
      for (const v of variants) {
        it(`${op.operationId} (${op.method.toUpperCase()} ${op.path}) with ${v.what}: 400 naming ${v.name}`, async () => {
          const { params, query } = probeParams(contract, op);
          if (v.in === 'path') params[v.name] = v.value!;
          else if (v.value === undefined) delete query[v.name];
          else query[v.name] = v.value;
          const shape = bodyShape(contract, op);
          const res = await resources.call(op, {
            params,
            query,
            ...(shape ? { body: baseBody(contract, shape) } : {}),
          });
          t.api.expectStatus(res, 400, `a request with ${v.what}`);
          if (!namesField(res.body, v.name)) {
            throw new ContractViolation(
              `${api} ${op.operationId}`,
              [`the 400 body does not name the parameter ${v.name}: ${res.text.slice(0, 200)}`],
              res,
              {
                request: {
                  method: op.method,
                  path: `${t.api.url(api, op.operationId, params).path}${Object.keys(query).length ? `?${new URLSearchParams(Object.entries(query).map(([k, x]) => [k, String(x)] as [string, string]))}` : ''}`,
                },
                expected: `400 naming ${v.name}`,
              },
            );
          }
        });
      }
    }
  });
}
