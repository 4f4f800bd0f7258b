// Generated from the documents: every operation of both interfaces refuses a request without
// credentials and one with a wrong key with 401 (the harness checks WWW-Authenticate and the Error
// body). Read-only: a refused request changes nothing.
import { describe, it } from 'vitest';
import { INTERFACES } from '../../src/openapi/documents.js';
import { Contract, useContract } from '../harness/index.js';
import { baseBody, bodyShape, probeParams, randomSuffix } from './derive.js';

const contract = await Contract.load();
const t = useContract();

for (const api of INTERFACES) {
  describe(`${api} interface: authentication`, () => {
    for (const op of contract.operations[api].values()) {
      const request = () => {
        const { params, query } = probeParams(contract, op);
        const shape = bodyShape(contract, op);
        return { params, query, ...(shape ? { body: baseBody(contract, shape) } : {}) };
      };
      const line = `${op.operationId} (${op.method.toUpperCase()} ${op.path})`;

      it(`${line} without credentials: 401 with WWW-Authenticate`, async () => {
        const res = await t.api.call(api, op.operationId, { ...request(), key: null });
        t.api.expectStatus(res, 401, 'a request without credentials');
      });

      it(`${line} with a wrong key: 401`, async () => {
        const res = await t.api.call(api, op.operationId, {
          ...request(),
          key: `wrong-key-${randomSuffix()}${randomSuffix()}`,
        });
        t.api.expectStatus(res, 401, 'a request with a key the target never issued');
      });
    }
  });
}
