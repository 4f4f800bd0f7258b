// A typed client of both Tusk interfaces: openapi-fetch with the types generated from the OpenAPI
// documents (`tusk-mock/types/customer`, `tusk-mock/types/instance`). Every path, parameter, body
// and response below is checked by the compiler against the contract.
//
// It walks through a first session with the stand-in: list the plans and regions, create an
// instance, wait until it is ready and read its API key, use that key on the instance API (its
// default alarms, a new recipient), and delete the instance again.
//
//   npm start                                   # in another terminal: the stand-in on 4010/4011
//   npx tsc -p examples/tsconfig.json && node dist/examples/typed-client/main.js
//   node dist/examples/typed-client/main.js http://127.0.0.1:4010 http://127.0.0.1:4011 tusk-admin-key
import { pathToFileURL } from 'node:url';
import createClient from 'openapi-fetch';
import type { components as Customer, paths as CustomerPaths } from 'tusk-mock/types/customer';
import type { components as Instance, paths as InstancePaths } from 'tusk-mock/types/instance';

export interface Walkthrough {
  plans: string[];
  created: Customer['schemas']['CreatedInstance'];
  instance: Customer['schemas']['Instance'];
  alarms: Instance['schemas']['Alarm'][];
  recipient: Instance['schemas']['Recipient'];
  deletedStatus: number;
}

/** HTTP Basic with an empty user name and the key as password, as both interfaces expect. */
const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

/** The data of a successful call, or an Error naming the call, its status and the error body. */
function ok<T>(call: string, result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    throw new Error(`${call}: HTTP ${result.response.status} ${JSON.stringify(result.error ?? null)}`);
  }
  return result.data;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function main(
  customerUrl: string,
  instanceUrl: string,
  key: string,
  log: (line: string) => void = console.log,
): Promise<Walkthrough> {
  const customer = createClient<CustomerPaths>({ baseUrl: customerUrl, headers: { Authorization: basic(key) } });

  const plans = ok('listPlans', await customer.GET('/api/plans', { params: { query: { backend: 'postgresql' } } }));
  const plan = plans.find((p) => p.shared) ?? plans[0];
  if (!plan) throw new Error('listPlans: no plan');
  log(`plans: ${plans.map((p) => `${p.name} ($${p.price})`).join(', ')}`);

  const regions = ok('listRegions', await customer.GET('/api/regions'));
  const region = regions.find((r) => r.has_shared_plans || !plan.shared);
  if (!region) throw new Error('listRegions: no region for plan ' + plan.name);

  const created = ok(
    'createInstance',
    await customer.POST('/api/instances', {
      body: { name: 'typed-client-example', plan: plan.name, region: `${region.provider}::${region.region}` },
    }),
  );
  log(`created instance ${created.id} on ${plan.name} in ${region.provider}::${region.region}`);

  // Provisioning takes --provision-delay ms on the stand-in: wait for `ready`.
  let instance = ok('getInstance', await customer.GET('/api/instances/{id}', { params: { path: { id: created.id } } }));
  for (let i = 0; !instance.ready && i < 100; i++) {
    await sleep(100);
    instance = ok('getInstance', await customer.GET('/api/instances/{id}', { params: { path: { id: created.id } } }));
  }
  if (!instance.ready) throw new Error(`getInstance: instance ${created.id} is not ready after 10 s`);
  log(`instance ${instance.id} is ready; its API key is ${instance.apikey}`);

  // The instance API authenticates with the instance's own key.
  const inst = createClient<InstancePaths>({
    baseUrl: instanceUrl,
    headers: { Authorization: basic(instance.apikey) },
  });
  const alarms = ok('listAlarms', await inst.GET('/api/alarms'));
  log(`alarms: ${alarms.map((a) => `${a.type}${a.enabled ? '' : ' (off)'}`).join(', ')}`);

  const recipient = ok(
    'createRecipient',
    await inst.POST('/api/alarms/recipients', {
      body: { type: 'email', value: 'oncall@example.com', name: 'on-call' },
    }),
  );
  log(`recipient ${recipient.id}: ${recipient.name} <${recipient.value}>`);

  const deleted = await customer.DELETE('/api/instances/{id}', { params: { path: { id: created.id } } });
  if (!deleted.response.ok)
    throw new Error(`deleteInstance: HTTP ${deleted.response.status} ${JSON.stringify(deleted.error ?? null)}`);
  log(`deleted instance ${created.id} (HTTP ${deleted.response.status})`);

  return {
    plans: plans.map((p) => p.name),
    created,
    instance,
    alarms,
    recipient,
    deletedStatus: deleted.response.status,
  };
}

// Run directly: node dist/examples/typed-client/main.js [customerUrl] [instanceUrl] [key]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [customerUrl = 'http://127.0.0.1:4010', instanceUrl = 'http://127.0.0.1:4011', key = 'tusk-admin-key'] =
    process.argv.slice(2);
  main(customerUrl, instanceUrl, key).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
