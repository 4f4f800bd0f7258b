// The whole check of a state load (PUT /__tusk/state, of the server or of one account, and
// `tusk serve --state FILE`), made before the registry changes anything:
//   the shape   against the control document's State or AccountState schema (which bounds every
//               time, id and count), the nesting of the records it carries from the interfaces (at
//               most MAX_BODY_DEPTH, as a request body: one nested thousands of levels deep would
//               overflow the stack when it is copied), and those records against their schemas;
//   the parts   what they must agree on: ids within their sequences, recipients, team members and
//               databases that exist, plans and regions of the catalogue, clocks within their
//               range, and identifiers unique across the whole server: account ids, API keys
//               (customer and instance keys alike) and providerids, which name the instances' real
//               databases and roles (an account that loaded another's providerid would take over
//               its database).
// Every problem is named with its field and rule (a StateError, a 400 through the control plane).
// loadState and loadAccountState are the one way a state reaches the registry (Registry.load).
import type { ErrorObject } from 'ajv';
import type { Catalogue } from '../../fixtures/index.js';
import { MAX_BODY_DEPTH } from '../core/limits.js';
import { errorField, ruleOf, type SchemaSet } from '../openapi/ajv.js';
import type { InterfaceName } from '../openapi/documents.js';
import { deeperThan } from '../openapi/requests.js';
import { clockStateProblems } from '../domain/clock.js';
import type { OutboxEntry } from '../domain/outbox.js';
import {
  STATE_VERSION,
  StateError,
  type AccountDump,
  type AccountState,
  type RegistryState,
  type StateProblem,
} from '../domain/state.js';
import { SECOND_DATABASE, databaseKeyOf } from '../resources/instances/instance.js';
import { keyNumber } from '../resources/apikeys/apikeys.js';
import type { Registry } from '../accounts/registry.js';
import type { AccountHome } from '../accounts/home.js';
import type { ControlDocument } from './document.js';
import { tellingErrors } from './body.js';

/** What the shape checks read: the interfaces' validators and the control document. */
export interface StateSchemas {
  schemas: SchemaSet;
  control: ControlDocument;
}

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

/** The shape checks of a whole state: returns the value as a RegistryState, or throws a StateError naming the problems. */
export function checkStateShape(value: unknown, schemas: SchemaSet, control: ControlDocument): RegistryState {
  checkSchema(value, 'State', control);
  const state = value as RegistryState;
  checkRecords(state.accounts, state.outbox.entries, (ai) => `accounts.${ai}`, schemas);
  return state;
}

/** Checks `value` whole and makes it the registry's state; throws a StateError and changes nothing when it is not valid. */
export function loadState(registry: Registry, value: unknown, { schemas, control }: StateSchemas): void {
  loadStateParts(registry, checkStateShape(value, schemas, control));
}

/** Loads a state of the right shape once its parts agree (stateProblems); a StateError and no change when not. */
export function loadStateParts(registry: Registry, state: RegistryState): void {
  const problems = stateProblems(state, registry.catalogue);
  if (problems.length) throw new StateError(problems);
  registry.load(state);
}

/** Checks one account's dump whole (its shape, then loadAccountParts) and makes it account `id`'s state. */
export function loadAccountState(
  registry: Registry,
  id: string,
  value: unknown,
  { schemas, control }: StateSchemas,
): AccountHome {
  checkSchema(value, 'AccountState', control);
  const dump = value as AccountDump;
  checkRecords([dump.account], dump.outbox.entries, () => 'account', schemas);
  return loadAccountParts(registry, id, dump);
}

/**
 * Makes a dump of the right shape account `id`'s state once the whole state with it in place of the
 * account's passes stateProblems (no key or providerid of another account, ids in order, catalogue
 * plans and regions, its clock within range). Every other account is untouched; a StateError, and
 * no change, when it cannot.
 */
export function loadAccountParts(registry: Registry, id: string, dump: AccountDump): AccountHome {
  if (!registry.home(id)) throw new StateError([`no account has id ${id}`]);
  if (dump.account.id !== id)
    throw new StateError([
      { field: 'account.id', rule: 'same-account', message: `the dump is of account ${dump.account.id}, not ${id}` },
    ]);
  // Checked as the last account of the whole state, so that what it shares with another account is
  // named in its own dump (and the other account is not named).
  const whole = registry.dump();
  const others = whole.accounts.filter((a) => a.id !== id);
  whole.accounts = [...others, dump.account];
  const problems = stateProblems(whole, registry.catalogue, { scoped: others.length });
  if (problems.length) throw new StateError(problems);
  return registry.loadAccount(id, dump);
}

export interface StateCheckOptions {
  /**
   * The index of the one account being loaded from its own dump (PUT /__tusk/state scoped to an
   * account; the other accounts are the server's as they are): its places are named `account...`
   * as in its dump, the server's clock and outbox are not its to check, and an identifier another
   * account holds is called another account's, without saying whose.
   */
  scoped?: number;
}

/** Every problem of `state`, named by its place (see StateCheckOptions.scoped); none: it can be loaded. */
export function stateProblems(
  state: RegistryState,
  catalogue: Catalogue,
  options: StateCheckOptions = {},
): StateProblem[] {
  const problems: StateProblem[] = [];
  const push = (field: string, rule: string, message: string) => problems.push({ field, rule, message });
  const placeOf = (ai: number) => (ai === options.scoped ? 'account' : `accounts.${ai}`);
  /** Each value once: `entry` gives an item's value and its field. */
  const unique = <T>(what: string, items: readonly T[], entry: (x: T, i: number) => [unknown, string]) => {
    const seen = new Map<unknown, string>();
    items.forEach((x, i) => {
      const [v, field] = entry(x, i);
      const first = seen.get(v);
      if (first !== undefined) push(field, 'unique', `${what} ${JSON.stringify(v)} appears twice (also at ${first})`);
      else seen.set(v, field);
    });
  };
  /** Ids each once, none above `last`; item `i` is at `${where}.${places[i] ?? i}`. */
  const ids = (items: { id: number }[], last: number, where: string, places: string[] = []) => {
    const field = (i: number) => `${where}.${places[i] ?? i}.id`;
    unique('id', items, (x, i) => [x.id, field(i)]);
    items.forEach((x, i) => {
      if (x.id > last)
        push(field(i), 'sequence', `id ${x.id} is above last_id ${last} (ids would be handed out twice)`);
    });
  };

  if (state.tusk_state !== STATE_VERSION)
    push('tusk_state', 'const', `this Tusk reads version ${STATE_VERSION}, not ${String(state.tusk_state)}`);
  if (options.scoped === undefined) {
    for (const p of clockStateProblems(state.clock)) push(`clock.${p.field}`, 'range', p.message);
    ids(state.outbox.entries, state.outbox.last_id, 'outbox.entries');
  }
  unique('account id', state.accounts, (a, ai) => [a.id, `${placeOf(ai)}.id`]);

  // Identifiers of the whole server: a key opens one account (or one instance), a providerid names
  // one database and its role. In an account's own load, one another account holds is refused
  // without naming that account.
  const across = (what: string, sentence: string) => {
    const first = new Map<string, { field: string; account: number; shown: string }>();
    return (key: string, shown: string, account: number, field: string) => {
      const seen = first.get(key);
      if (!seen) {
        first.set(key, { field, account, shown });
        return;
      }
      const same = seen.shown === shown ? '' : ` (as ${seen.shown} does)`;
      if (options.scoped !== undefined && seen.account !== options.scoped)
        push(field, 'unique', `${what}${same} belongs to another account; ${sentence}`);
      else push(field, 'unique', `${what}${same} appears twice in the state (also at ${seen.field}); ${sentence}`);
    };
  };
  const apiKey = across('this API key', 'every customer and instance API key is unique across the server');
  const providerid = across(
    'this providerid',
    "it names the instance's database and role, so it is unique across the server (compared without case by its first 16 letters and digits)",
  );
  state.accounts.forEach((a, ai) => {
    a.keys.forEach((k, i) => apiKey(k.key, 'this API key', ai, `${placeOf(ai)}.keys.${i}.key`));
    a.instances.forEach((x, i) => apiKey(x.apikey, 'this API key', ai, `${placeOf(ai)}.instances.${i}.apikey`));
  });
  state.accounts.forEach((a, ai) =>
    a.instances.forEach((x, i) =>
      providerid(databaseKeyOf(x.providerid), x.providerid, ai, `${placeOf(ai)}.instances.${i}.providerid`),
    ),
  );

  state.accounts.forEach((a: AccountState, ai) => {
    const at = placeOf(ai);
    if (a.clock) for (const p of clockStateProblems(a.clock)) push(`${at}.clock.${p.field}`, 'range', p.message);
    unique('key id', a.keys, (k, i) => [k.id, `${at}.keys.${i}.id`]);
    a.keys.forEach((k, i) => {
      if (keyNumber(k.id) > a.last_key_id)
        push(`${at}.keys.${i}.id`, 'sequence', `id ${k.id} is above last_key_id ${a.last_key_id}`);
      if (!a.team.some((m) => m.email.toLowerCase() === k.email.toLowerCase()))
        push(`${at}.keys.${i}.email`, 'exists', `${k.id} acts for ${k.email}, who is no team member`);
    });
    unique('id', a.team, (m, i) => [m.id, `${at}.team.${i}.id`]);
    unique('e-mail', a.team, (m, i) => [m.email.toLowerCase(), `${at}.team.${i}.email`]);
    unique('id', a.invoices, (inv, i) => [inv.id, `${at}.invoices.${i}.id`]);
    ids(a.instances, a.last_instance_id, `${at}.instances`);
    a.instances.forEach((x, xi) => {
      const where = `${at}.instances.${xi}`;
      if (!catalogue.plans.some((p) => p.name === x.plan))
        push(`${where}.plan`, 'exists', `${x.plan} is not a catalogue plan`);
      if (!catalogue.regions.some((r) => `${r.provider}::${r.region}` === x.region))
        push(`${where}.region`, 'exists', `${x.region} is not a catalogue region`);
      ids(x.recipients.items, x.recipients.last_id, `${where}.recipients.items`);
      if (!x.recipients.items.some((r) => r.id === x.recipients.default_id))
        push(`${where}.recipients.default_id`, 'exists', `the default recipient ${x.recipients.default_id} is missing`);
      ids(x.alarms.items, x.alarms.last_id, `${where}.alarms.items`);
      x.alarms.items.forEach((alarm, i) => {
        const field = `${where}.alarms.items.${i}.recipients`;
        for (const r of alarm.recipients)
          if (!x.recipients.items.some((y) => y.id === r))
            push(field, 'exists', `alarm ${alarm.id} names the unknown recipient ${r}`);
      });
      const { logs, metrics, last_id } = x.integrations;
      const places = [...logs.map((_, i) => `logs.${i}`), ...metrics.map((_, i) => `metrics.${i}`)];
      ids([...logs, ...metrics], last_id, `${where}.integrations`, places);
      const databases = [`db${x.id}`, SECOND_DATABASE];
      if (x.backups.next_daily.length !== databases.length)
        push(`${where}.backups.next_daily`, 'length', `one day per database (${databases.join(', ')})`);
      ids(x.backups.items, x.backups.last_id, `${where}.backups.items`);
      const names = databases.join(', ');
      x.backups.items.forEach((b, i) => {
        const field = `${where}.backups.items.${i}.database_name`;
        if (!databases.includes(b.database_name))
          push(field, 'exists', `backup ${b.id} is of ${b.database_name}, not a database of the instance (${names})`);
      });
      ids(x.maintenance.items, x.maintenance.last_id, `${where}.maintenance.items`);
    });
  });
  return problems;
}
