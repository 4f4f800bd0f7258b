// What a state dump's parts must agree on before the registry takes it over (Registry.restore and
// restoreAccount; its shape is checked before, src/control/state.ts): ids within their sequences,
// recipients, team members and databases that exist, plans and regions of the catalogue, clocks
// within their range, and identifiers unique across the whole server: account ids, API keys
// (customer and instance keys alike) and providerids, which name the instances' real databases and
// roles (an account that loaded another account's providerid would take over its database).
// Every problem is found, each with its field and rule; the registry changes nothing when there is one.
import type { Catalogue } from '../../fixtures/index.js';
import { clockStateProblems } from './clock.js';
import { SECOND_DATABASE, databaseKeyOf } from './instance-store.js';
import { STATE_VERSION, type AccountState, type RegistryState, type StateProblem } from './snapshot.js';

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
export function checkState(
  state: RegistryState,
  catalogue: Catalogue,
  options: StateCheckOptions = {},
): StateProblem[] {
  const problems: StateProblem[] = [];
  const push = (field: string, rule: string, message: string) => problems.push({ field, rule, message });
  const placeOf = (ai: number) => (ai === options.scoped ? 'account' : `accounts.${ai}`);
  const unique = <T>(values: T[], field: (i: number) => string, what: string) => {
    const seen = new Map<T, number>();
    values.forEach((v, i) => {
      const first = seen.get(v);
      if (first !== undefined)
        push(field(i), 'unique', `${what} ${JSON.stringify(v)} appears twice (also at ${field(first)})`);
      else seen.set(v, i);
    });
  };
  const ids = (items: { id: number }[], last: number, where: string) => {
    unique(
      items.map((x) => x.id),
      (i) => `${where}.${i}.id`,
      'id',
    );
    items.forEach((x, i) => {
      if (x.id > last)
        push(`${where}.${i}.id`, 'sequence', `id ${x.id} is above last_id ${last} (ids would be handed out twice)`);
    });
  };

  if (state.tusk_state !== STATE_VERSION)
    push('tusk_state', 'const', `this Tusk reads version ${STATE_VERSION}, not ${String(state.tusk_state)}`);
  if (options.scoped === undefined) {
    for (const p of clockStateProblems(state.clock)) push(`clock.${p.field}`, 'range', p.message);
    ids(state.outbox.entries, state.outbox.last_id, 'outbox.entries');
  }
  unique(
    state.accounts.map((a) => a.id),
    (ai) => `${placeOf(ai)}.id`,
    'account id',
  );

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
    unique(
      a.keys.map((k) => k.id),
      (i) => `${at}.keys.${i}.id`,
      'key id',
    );
    a.keys.forEach((k, i) => {
      const n = Number(/(\d+)$/.exec(k.id)?.[1] ?? 0);
      if (n > a.last_key_id) push(`${at}.keys.${i}.id`, 'sequence', `id ${k.id} is above last_key_id ${a.last_key_id}`);
      if (!a.team.some((m) => m.email.toLowerCase() === k.email.toLowerCase()))
        push(`${at}.keys.${i}.email`, 'exists', `${k.id} acts for ${k.email}, who is no team member`);
    });
    unique(
      a.team.map((m) => m.id),
      (i) => `${at}.team.${i}.id`,
      'id',
    );
    unique(
      a.team.map((m) => m.email.toLowerCase()),
      (i) => `${at}.team.${i}.email`,
      'e-mail',
    );
    unique(
      a.invoices.map((inv) => inv.id),
      (i) => `${at}.invoices.${i}.id`,
      'id',
    );
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
        for (const r of alarm.recipients)
          if (!x.recipients.items.some((y) => y.id === r))
            push(
              `${where}.alarms.items.${i}.recipients`,
              'exists',
              `alarm ${alarm.id} names the unknown recipient ${r}`,
            );
      });
      const integrations = [
        ...x.integrations.logs.map((r, i) => ({ id: r.id, at: `logs.${i}` })),
        ...x.integrations.metrics.map((r, i) => ({ id: r.id, at: `metrics.${i}` })),
      ];
      unique(
        integrations.map((r) => r.id),
        (i) => `${where}.integrations.${integrations[i]!.at}.id`,
        'id',
      );
      for (const r of integrations)
        if (r.id > x.integrations.last_id)
          push(
            `${where}.integrations.${r.at}.id`,
            'sequence',
            `id ${r.id} is above last_id ${x.integrations.last_id} (ids would be handed out twice)`,
          );
      const databases = [`db${x.id}`, SECOND_DATABASE];
      if (x.backups.next_daily.length !== databases.length)
        push(`${where}.backups.next_daily`, 'length', `one day per database (${databases.join(', ')})`);
      ids(x.backups.items, x.backups.last_id, `${where}.backups.items`);
      x.backups.items.forEach((b, i) => {
        if (!databases.includes(b.database_name))
          push(
            `${where}.backups.items.${i}.database_name`,
            'exists',
            `backup ${b.id} is of ${b.database_name}, not a database of the instance (${databases.join(', ')})`,
          );
      });
      ids(x.maintenance.items, x.maintenance.last_id, `${where}.maintenance.items`);
    });
  });
  return problems;
}
