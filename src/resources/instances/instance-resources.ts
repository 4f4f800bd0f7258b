// The instance interface's resources of one instance: its recipients, alarms, log and metrics
// integrations, backups, maintenance and the monitor that fires its alarms, and what spans them,
// wired here: a deleted recipient leaves every alarm, the monitor is told of every alarm change and
// of maintenance rescheduled or started, a maintenance run ends the database's sessions, and the
// backups of the default database are real work on it (backups/database.ts). InstanceStore builds
// them the first time anything reads or changes them, dated from the instance's creation: most
// instances a test creates are never opened through the instance interface, and never hold these.
import type { Alarm, BrokerKind, Plan, Recipient, StoreContext } from '../../domain/types.js';
import type { DatabaseRef } from '../../databases/instance-databases.js';
import { backupDatabase } from '../backups/database.js';
import { IdSequence } from '../../domain/ids.js';
import { Recipients } from '../recipients/recipients.js';
import { Alarms } from '../alarms/alarms.js';
import { Integrations, type IntegrationKind } from '../integrations/integrations.js';
import { Backups } from '../backups/backups.js';
import { MaintenanceSchedule, seededMaintenance } from '../maintenance/maintenance.js';
import { Monitor, type MaintenanceStart, type MonitorHost } from '../alarms/monitor.js';
import type { InstanceState } from '../../domain/state.js';

/** The second database every instance has (backups cover each database). */
export const SECOND_DATABASE = 'analytics';

/** What the resources read of their instance (InstanceStore), when they need it. */
export interface InstanceFacts {
  /** The instance's real database, with a database engine. */
  readonly db?: DatabaseRef | undefined;
  readonly id: number;
  readonly name: string;
  readonly accountId: string;
  readonly providerid: string;
  readonly region: string;
  readonly teamEmail: string;
  readonly plan: Plan;
  readonly brokerKind: BrokerKind;
}

/** The resources' part of an instance's state dump (InstanceStore.toJSON). */
export type InstanceResourcesDump = Pick<
  InstanceState,
  'recipients' | 'alarms' | 'integrations' | 'backups' | 'maintenance' | 'monitor'
>;

/**
 * The time before which an instance created at `origin`, untouched since, has nothing to notify:
 * its default alarms do not hold under the default metrics, so only the start of its first seeded
 * maintenance can trigger (its notice alarm).
 */
export function firstDueOfInitialState(instanceId: number, origin: number): number {
  let due = Infinity;
  for (const m of seededMaintenance(instanceId, origin)) due = Math.min(due, m.scheduledBy);
  return due;
}

/**
 * What an instance's monitor reads of it: one object of six references, with its methods on the
 * prototype, shared by every instance, rather than closures made for each one.
 */
class SideMonitorHost implements MonitorHost {
  readonly clock: StoreContext['clock'];
  readonly outbox: StoreContext['outbox'];

  constructor(
    private readonly owner: InstanceFacts,
    ctx: StoreContext,
    private readonly alarmList: Alarms,
    private readonly recipientList: Recipients,
    private readonly schedule: MaintenanceSchedule,
  ) {
    this.clock = ctx.clock;
    this.outbox = ctx.outbox;
  }

  instance(): { id: number; name: string } {
    return { id: this.owner.id, name: this.owner.name };
  }

  /** Read only: no copies per evaluation. */
  alarms(): Alarm[] {
    return this.alarmList.current() as Alarm[];
  }

  recipients(): Recipient[] {
    return this.recipientList.list();
  }

  defaultRecipientId(): number {
    return this.recipientList.defaultId;
  }

  maintenanceStarts(now: number, except?: ReadonlySet<number>): MaintenanceStart[] {
    return this.schedule.starts(now, except);
  }

  nextMaintenanceStart(now: number): number | undefined {
    return this.schedule.nextStart(now);
  }
}

export class InstanceResources {
  readonly recipients: Recipients;
  readonly alarms: Alarms;
  readonly integrationIds: IdSequence;
  readonly integrations: Record<IntegrationKind, Integrations>;
  readonly backups: Backups;
  readonly maintenance: MaintenanceSchedule;
  /** Simulated metrics and the alarms that fire (outside the contract; see instance-monitor.ts). */
  readonly monitor: Monitor;

  /**
   * @param origin when the instance was built: the initial state (the default recipient, the four
   *   default alarms, a history of daily backups, upcoming maintenance) is dated from it, whenever
   *   the state is built
   * @param databases the instance's databases, the default one first
   * @param state the state to take over (InstanceStore.fromJSON) instead of the initial one
   */
  constructor(
    owner: InstanceFacts,
    ctx: StoreContext,
    origin: number,
    databases: readonly string[],
    state?: InstanceResourcesDump,
  ) {
    this.alarms = new Alarms(
      {
        allowedTypes: () => {
          const shared = owner.plan.shared;
          return { types: ctx.rules.alarmTypesByPlan[shared ? 'shared' : 'dedicated'], shared };
        },
        recipientExists: (id) => this.recipients.has(id),
      },
      state?.alarms,
      {
        created: (alarm) => this.monitor.added(alarm),
        updating: () => this.monitor.evaluate(),
        changed: () => this.monitor.evaluate(),
      },
    );
    this.recipients = new Recipients(owner.teamEmail, (id) => this.alarms.forgetRecipient(id), state?.recipients);
    this.integrationIds = state ? IdSequence.fromJSON(state.integrations.last_id) : new IdSequence();
    const integrationRules = {
      accountId: owner.accountId,
      brokerKind: () => owner.brokerKind,
      availability: ctx.rules.metricsAvailability,
    };
    this.integrations = {
      logs: new Integrations('logs', this.integrationIds, integrationRules, state?.integrations.logs),
      metrics: new Integrations('metrics', this.integrationIds, integrationRules, state?.integrations.metrics),
    };
    this.backups = new Backups(
      {
        instanceId: owner.id,
        providerid: owner.providerid,
        accountId: owner.accountId,
        region: owner.region,
        databases,
      },
      ctx,
      origin,
      state?.backups,
      owner.db && ctx.databases ? backupDatabase(ctx.databases, owner.db) : undefined,
    );
    this.maintenance = new MaintenanceSchedule(
      ctx.clock,
      state ? [] : seededMaintenance(owner.id, origin),
      state?.maintenance,
      {
        before: () => this.monitor.evaluate(),
        rescheduled: (record) => this.monitor.maintenanceScheduled(record),
        started: (id, record) => {
          this.monitor.maintenanceRun(id, record);
          // What a client sees of maintenance: its sessions end (a restart).
          if (owner.db) ctx.databases?.terminate(owner.db);
        },
      },
    );
    this.monitor = new Monitor(
      new SideMonitorHost(owner, ctx, this.alarms, this.recipients, this.maintenance),
      state?.monitor,
      origin,
    );
  }

  toJSON(): InstanceResourcesDump {
    return {
      recipients: this.recipients.toJSON(),
      alarms: this.alarms.toJSON(),
      integrations: {
        last_id: this.integrationIds.toJSON(),
        logs: this.integrations.logs.list(),
        metrics: this.integrations.metrics.list(),
      },
      backups: this.backups.toJSON(),
      maintenance: this.maintenance.toJSON(),
      monitor: this.monitor.toJSON(),
    };
  }
}
