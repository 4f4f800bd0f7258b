// What the server keeps beside the accounts' homes, made once per registry: its outbox, the context
// every store reads (delays, key index, secrets, rules, databases), its own fault rules, request
// journal and API coverage, and what every home shares of them (HomeShared).
import type { FixtureOptions } from '../../fixtures/index.js';
import type { InstanceDatabases } from '../databases/instance-databases.js';
import type { ContractRules } from '../openapi/rules.js';
import type { OperationInfo } from '../openapi/operations.js';
import { CoverageRecorder } from '../openapi/coverage-recorder.js';
import type { AccountClock, VirtualClock } from '../domain/clock.js';
import { Outbox, type OutboxOptions } from '../domain/outbox.js';
import { Faults, type FaultRule } from '../domain/fault-rules.js';
import { RequestJournal } from '../domain/journal.js';
import { SecretSource } from '../domain/secrets.js';
import type { KeyIndex, StoreContext } from '../domain/types.js';
import { BACKUP_DELAY_MS, RESTORE_DELAY_MS } from '../resources/backups/backups.js';
import type { HomeShared } from './home.js';

export interface RegistryOptions extends FixtureOptions {
  /** Rules read from the instance document (readContractRules). */
  rules: ContractRules;
  /** ms from create-instance until ready (default 0; `tusk serve --provision-delay`, 1000 by default). */
  provisionDelayMs?: number;
  /** Default BACKUP_DELAY_MS (resources/backups/backups.ts, with the rule). */
  backupDelayMs?: number;
  /** Default RESTORE_DELAY_MS (resources/backups/backups.ts, with the rule). */
  restoreDelayMs?: number;
  clock?: VirtualClock;
  outbox?: Omit<OutboxOptions, 'clock'>;
  /** The real databases behind the instances (src/databases/); absent: records only. */
  databases?: InstanceDatabases;
  /** Every operation of both interfaces: what fault rules may name and coverage counts (absent: none). */
  operations?: OperationInfo[];
  /** The server's fault rules in force from the start (objects, or the flag form). */
  faults?: (FaultRule | string)[];
  /** Requests the journal keeps (default 1000). */
  journalSize?: number;
  /**
   * One replica of a team (src/replicas/): the state is shared with other processes, so what this one
   * does not hold is not unused (no database is dropped for it), and outbox entries keep their ids.
   */
  shared?: boolean;
}

/** The server's parts, for `options`, its clock and its key index. */
export function serverParts(
  options: RegistryOptions,
  clock: VirtualClock,
  keys: KeyIndex,
  homes: {
    /** The clock of account `id` (the outbox dates an account's entries on it). */
    accountClock: (id: string) => AccountClock | undefined;
    /** Told of every home's fault rules, made when the account sets its first. */
    madeFaults: (faults: Faults) => void;
    /** Runs `apply` as a change of account `id` (HomeShared.settle). */
    settle: (id: string, apply: () => void) => void;
  },
) {
  const outbox = new Outbox({ clock, accountClock: homes.accountClock, ...options.outbox });
  const context: StoreContext = {
    clock,
    keys,
    outbox,
    provisionDelayMs: options.provisionDelayMs ?? 0,
    backupDelayMs: options.backupDelayMs ?? BACKUP_DELAY_MS,
    restoreDelayMs: options.restoreDelayMs ?? RESTORE_DELAY_MS,
    rules: options.rules,
    secrets: new SecretSource(),
    ...(options.databases ? { databases: options.databases } : {}),
  };
  const operations = options.operations ?? [];
  const faults = new Faults(operations, options.seed, options.faults ?? []);
  const journal = new RequestJournal(options.journalSize ?? 1000);
  const coverage = new CoverageRecorder(operations);
  const shared: HomeShared = {
    context,
    serverClock: clock,
    outbox,
    journal,
    coverage,
    makeFaults: () => {
      const made = new Faults(operations, options.seed);
      homes.madeFaults(made);
      return made;
    },
    settle: homes.settle,
  };
  return { outbox, context, faults, journal, coverage, shared };
}
