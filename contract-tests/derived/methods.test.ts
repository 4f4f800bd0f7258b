// Generated from the documents: on every path of both interfaces, each method the path does not
// support gets 405 with an Allow header that lists exactly the path's methods. Where a fixed path
// (/api/team/invite) also matches a templated one (/api/team/{user_id}) the URL is ambiguous; there
// Allow must list at least the fixed path's methods and nothing the matching paths do not support,
// and only methods that no matching path supports are sent.
import { describe, expect, it } from 'vitest';
import { INTERFACES } from '../../src/openapi/documents.js';
import { Contract, ContractViolation, recordObserved, useContract } from '../harness/index.js';
import { itemParams, methodsMatching, METHODS, pathsOf, probeParams, resourcePairs } from './derive.js';
import { Resources } from './support.js';

const contract = await Contract.load();
const t = useContract();
const resources = new Resources(t);
const pairs = resourcePairs(contract);

for (const api of INTERFACES) {
  describe(`${api} interface: unsupported methods`, () => {
    for (const [path, { methods, ops }] of pathsOf(contract, api)) {
      const probe = probeParams(contract, ops[0]!);
      const probePath = path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(probe.params[n])));
      const matching = methodsMatching(contract, api, probePath);
      const unsupported = METHODS.filter((m) => !matching.includes(m));
      for (const method of unsupported) {
        it(`${method} ${path}: 405 with Allow: ${[...methods].sort().join(', ')}`, async () => {
          // Ids of the suite's own resources where the path addresses one of a creatable kind.
          const pair = pairs.find((p) => p.api === api && p.itemOps.some((o) => o.path === path));
          let params = probe.params;
          if (pair) {
            const own = await resources.ownResource(pair);
            params = itemParams(contract, ops[0]!, own.id, own.system);
          }
          const urlPath = path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(String(params[n])));
          const base = api === 'customer' ? t.target.customerUrl : t.target.instanceUrl;
          const res = await t.api.send(base, method, urlPath, { key: await resources.key(api), unchecked: true });
          const request = { method, path: urlPath };
          const declared = contract.declaredStatuses(api, ops[0]!.operationId);
          if (res.status !== 405) {
            throw new ContractViolation(
              `${api} ${method} ${path}`,
              [`a method the path does not support: expected 405, got ${res.status}`],
              res,
              {
                request,
                declared,
                expected: '405',
              },
            );
          }
          // The 405 response itself as the document declares it (Error body, Allow header).
          contract.check(api, ops[0]!.operationId, res, request);
          recordObserved({ api, operationId: ops[0]!.operationId, status: 405, path: urlPath });
          const allow = String(res.headers.allow ?? '')
            .split(',')
            .map((m) => m.trim().toUpperCase())
            .filter(Boolean)
            .sort();
          const exact = matching.length === methods.length;
          const ok = exact
            ? JSON.stringify(allow) === JSON.stringify([...methods].sort())
            : methods.every((m) => allow.includes(m)) && allow.every((m) => matching.includes(m));
          if (!ok) {
            throw new ContractViolation(
              `${api} ${method} ${path}`,
              [
                `Allow: ${allow.join(', ') || '(empty)'} should list ${exact ? 'exactly' : 'at least'} ${[...methods].sort().join(', ')}${exact ? '' : ` and only methods of ${matching.join(', ')}`}`,
              ],
              res,
              {
                request,
                declared,
                expected: `405 with Allow: ${[...methods].sort().join(', ')}`,
              },
            );
          }
          expect(allow).not.toContain(method);
        });
      }
    }
  });
}
