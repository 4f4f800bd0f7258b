// Checks a state dump before the registry takes it over (PUT /__tusk/state, `--state FILE`):
// its shape against the control document's State schema, and the API records in it against the
// interfaces' schemas. Registry.restore() then checks that the parts agree with each other.
import { describeError, type SchemaSet } from '../openapi/ajv.js';
import type { InterfaceName } from '../openapi/documents.js';
import { StateError, type AccountDump, type RegistryState } from '../store/snapshot.js';
import type { Registry } from '../store/registry.js';
import type { ControlDocument } from './document.js';

const MAX_PROBLEMS = 20;

/** Returns the value as a RegistryState, or throws a StateError naming the problems. */
export function checkStateShape(value: unknown, schemas: SchemaSet, control: ControlDocument): RegistryState {
  const validate = control.schema('State');
  if (!validate(value)) {
    throw new StateError(validate.errors!.slice(0, MAX_PROBLEMS).map((e) => describeError(e, 'state')));
  }
  const state = value as RegistryState;
  const problems: string[] = [];
  const check = (api: InterfaceName, schema: string, v: unknown, where: string) => {
    if (problems.length >= MAX_PROBLEMS) return;
    const fn = schemas.validator(api, `#/components/schemas/${schema}`);
    if (!fn(v)) problems.push(describeError(fn.errors![0]!, where));
  };
  state.accounts.forEach((a, ai) => {
    const at = `state accounts.${ai}`;
    check('customer', 'Uuid', a.id, `${at}.id`);
    check('customer', 'InvoiceCustomer', a.customer, `${at}.customer`);
    a.keys.forEach((k, i) => check('customer', 'TeamRole', k.role, `${at}.keys.${i}.role`));
    a.team.forEach(({ tags: _tags, ...m }, i) => check('customer', 'TeamMember', m, `${at}.team.${i}`));
    a.invoices.forEach((inv, i) => check('customer', 'InvoiceDetail', inv.detail, `${at}.invoices.${i}.detail`));
    a.instances.forEach((x, xi) => {
      const where = `${at}.instances.${xi}`;
      x.recipients.items.forEach((r, i) => check('instance', 'Recipient', r, `${where}.recipients.items.${i}`));
      x.alarms.items.forEach((r, i) => check('instance', 'Alarm', r, `${where}.alarms.items.${i}`));
      x.integrations.logs.forEach((r, i) => check('instance', 'Integration', r, `${where}.integrations.logs.${i}`));
      x.integrations.metrics.forEach((r, i) => check('instance', 'Integration', r, `${where}.integrations.metrics.${i}`));
    });
  });
  if (problems.length) throw new StateError(problems);
  return state;
}

/** Checks `value` and makes it the registry's state; throws a StateError and changes nothing when it is not valid. */
export function loadState(registry: Registry, value: unknown, schemas: SchemaSet, control: ControlDocument): void {
  registry.restore(checkStateShape(value, schemas, control));
}

/** Checks one account's dump (the AccountState schema, and its records) and makes it account `id`'s state. */
export function loadAccountState(registry: Registry, id: string, value: unknown, schemas: SchemaSet, control: ControlDocument): void {
  const validate = control.schema('AccountState');
  if (!validate(value)) throw new StateError(validate.errors!.slice(0, MAX_PROBLEMS).map((e) => describeError(e, 'state')));
  const dump = value as AccountDump;
  // The account's records, checked as in a whole state.
  checkStateShape({ tusk_state: 1, seed: 0, clock: { offset_ms: 0, pinned_ms: null }, outbox: { last_id: 0, entries: [] }, accounts: [dump.account] }, schemas, control);
  registry.restoreAccount(id, dump);
}
