// Checks a state dump before the registry takes it over (PUT /__tusk/state, `--state FILE`):
// its shape against the control document's State schema (which bounds every time, id and count),
// the nesting of the records it carries from the interfaces (at most MAX_BODY_DEPTH, as a request
// body: one nested thousands of levels deep would overflow the stack when it is copied), and those
// records against the interfaces' schemas. Registry.restore() then checks that the parts agree
// with each other and with the rest of the server (src/store/state-check.ts).
import type { ErrorObject } from 'ajv';
import { MAX_BODY_DEPTH } from '../core/limits.js';
import { errorField, ruleOf, type SchemaSet } from '../openapi/ajv.js';
import type { InterfaceName } from '../openapi/documents.js';
import { deeperThan } from '../openapi/requests.js';
import {
  StateError,
  type AccountDump,
  type AccountState,
  type RegistryState,
  type StateProblem,
} from '../store/snapshot.js';
import type { OutboxEntry } from '../store/outbox.js';
import type { Registry } from '../store/registry.js';
import type { ControlDocument } from './document.js';
import { tellingErrors } from './body.js';

const MAX_PROBLEMS = 20;

/** An ajv error of a value found at `where` (its place in the dump, '' at the top) as a problem. */
function problemOf(err: ErrorObject, where: string): StateProblem {
  const field = [where, errorField(err)].filter(Boolean).join('.') || 'state';
  return { field, rule: err.keyword, message: ruleOf(err) };
}

/** Checks `value` against the control document's schema `name`; throws a StateError naming the problems. */
function checkSchema(value: unknown, name: 'State' | 'AccountState', control: ControlDocument): void {
  const validate = control.schema(name);
  if (!validate(value)) {
    const errors = tellingErrors(validate.errors!);
    throw new StateError(
      (errors.length ? errors : validate.errors!).slice(0, MAX_PROBLEMS).map((e) => problemOf(e, '')),
    );
  }
}

/**
 * Checks the records an account carries from the interfaces (and its outbox entries' bodies): first
 * that none nests deeper than a request body may, then each against its interface schema.
 * `at(ai)` is the place of account `ai` in the dump.
 */
function checkRecords(
  accounts: AccountState[],
  entries: OutboxEntry[],
  at: (ai: number) => string,
  schemas: SchemaSet,
): void {
  const problems: StateProblem[] = [];
  const free: [unknown, string][] = entries.map((e, i) => [e.body, `outbox.entries.${i}.body`]);
  const typed: [InterfaceName, string, unknown, string][] = [];
  accounts.forEach((a, ai) => {
    const where = at(ai);
    typed.push(
      ['customer', 'Uuid', a.id, `${where}.id`],
      ['customer', 'InvoiceCustomer', a.customer, `${where}.customer`],
    );
    a.keys.forEach((k, i) => typed.push(['customer', 'TeamRole', k.role, `${where}.keys.${i}.role`]));
    a.team.forEach(({ tags: _tags, ...m }, i) => typed.push(['customer', 'TeamMember', m, `${where}.team.${i}`]));
    a.invoices.forEach((inv, i) =>
      typed.push(['customer', 'InvoiceDetail', inv.detail, `${where}.invoices.${i}.detail`]),
    );
    a.instances.forEach((x, xi) => {
      const place = `${where}.instances.${xi}`;
      x.recipients.items.forEach((r, i) => typed.push(['instance', 'Recipient', r, `${place}.recipients.items.${i}`]));
      x.alarms.items.forEach((r, i) => typed.push(['instance', 'Alarm', r, `${place}.alarms.items.${i}`]));
      x.integrations.logs.forEach((r, i) =>
        typed.push(['instance', 'Integration', r, `${place}.integrations.logs.${i}`]),
      );
      x.integrations.metrics.forEach((r, i) =>
        typed.push(['instance', 'Integration', r, `${place}.integrations.metrics.${i}`]),
      );
    });
  });
  for (const [value, where] of [...free, ...typed.map(([, , v, w]): [unknown, string] => [v, w])]) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (deeperThan(value, MAX_BODY_DEPTH))
      problems.push({
        field: where,
        rule: 'maxDepth',
        message: `nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels, as no request body may`,
      });
  }
  if (problems.length) throw new StateError(problems);
  for (const [api, schema, value, where] of typed) {
    if (problems.length >= MAX_PROBLEMS) break;
    const fn = schemas.validator(api, `#/components/schemas/${schema}`);
    if (!fn(value)) problems.push(problemOf(fn.errors![0]!, where));
  }
  if (problems.length) throw new StateError(problems);
}

/** Returns the value as a RegistryState, or throws a StateError naming the problems. */
export function checkStateShape(value: unknown, schemas: SchemaSet, control: ControlDocument): RegistryState {
  checkSchema(value, 'State', control);
  const state = value as RegistryState;
  checkRecords(state.accounts, state.outbox.entries, (ai) => `accounts.${ai}`, schemas);
  return state;
}

/** Checks `value` and makes it the registry's state; throws a StateError and changes nothing when it is not valid. */
export function loadState(registry: Registry, value: unknown, schemas: SchemaSet, control: ControlDocument): void {
  registry.restore(checkStateShape(value, schemas, control));
}

/** Checks one account's dump (the AccountState schema, and its records) and makes it account `id`'s state. */
export function loadAccountState(
  registry: Registry,
  id: string,
  value: unknown,
  schemas: SchemaSet,
  control: ControlDocument,
): void {
  checkSchema(value, 'AccountState', control);
  const dump = value as AccountDump;
  checkRecords([dump.account], dump.outbox.entries, () => 'account', schemas);
  registry.restoreAccount(id, dump);
}
