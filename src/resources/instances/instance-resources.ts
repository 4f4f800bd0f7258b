// The instance interface's state of one instance: its recipients, alarms, log and metrics
// integrations, backups, maintenance and the monitor that fires its alarms. InstanceStore builds it
// the first time anything reads or changes it, dated from the instance's creation: most instances a
// test creates are never opened through the instance interface, and those never hold this state.
import type { Alarm, BrokerKind, Plan, Recipient, StoreContext } from '../../domain/types.js';
import { IdSequence } from '../../domain/ids.js';
import { Recipients } from '../recipients/recipients.js';
import { Alarms } from '../alarms/alarms.js';
import { Integrations, type IntegrationKind } from '../integrations/integrations.js';
import { Backups } from '../backups/backups.js';
import { BackupsView } from '../backups/view.js';
import { MaintenanceSchedule, seededMaintenance } from '../maintenance/maintenance.js';
import { Monitor, type MaintenanceStart, type MonitorHost } from '../alarms/monitor.js';
import type { InstanceState } from '../../domain/state.js';

/** The second database every instance has (backups cover each database). */
export const SECOND_DATABASE = 'analytics';

/** What the instance-API state reads of its instance (InstanceStore), when it needs it. */
export interface InstanceFacts {
  readonly id: number;
  readonly name: string;
  readonly accountId: string;
  readonly providerid: string;
  readonly region: string;
  readonly teamEmail: string;
  readonly plan: Plan;
  readonly brokerKind: BrokerKind;
}

/** The per-instance state a state dump carries (InstanceStore.toJSON). */
export type InstanceApiStateDump = Pick<
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

export class InstanceApiState {
  readonly recipients: Recipients;
  readonly alarms: Alarms;
  readonly integrationIds: IdSequence;
  readonly integrations: Record<IntegrationKind, Integrations>;
  readonly backups: Backups;
  /** The backup list as the bytes of its answer. */
  readonly backupsView: BackupsView;
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
    state?: InstanceApiStateDump,
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
    );
    this.backupsView = new BackupsView(this.backups, ctx.clock);
    this.maintenance = new MaintenanceSchedule(
      ctx.clock,
      state ? [] : seededMaintenance(owner.id, origin),
      state?.maintenance,
    );
    this.monitor = new Monitor(
      new SideMonitorHost(owner, ctx, this.alarms, this.recipients, this.maintenance),
      state?.monitor,
      origin,
    );
  }

  toJSON(): InstanceApiStateDump {
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
