// Rules of the spec that the instance document carries as extensions, read once at start-up so the
// stores enforce exactly what the document says.
import type { OpenApiDocument } from './documents.js';
import { readOperations } from './operations.js';

/** The broker kind that decides which metrics systems an instance may use (the spec's availability table). */
export type BrokerKind = 'primary_below_4_2' | 'primary_from_4_2' | 'alternative';

export interface ContractRules {
  /** x-metrics-availability of createMetricsIntegration: system -> broker kind -> offered. */
  metricsAvailability: Record<string, Record<BrokerKind, boolean>>;
  /** x-alarm-types-by-plan of createAlarm. */
  alarmTypesByPlan: { shared: string[]; dedicated: string[] };
}

export function readContractRules(instanceDoc: OpenApiDocument): ContractRules {
  const ops = new Map(readOperations('instance', instanceDoc).map((o) => [o.operationId, o]));
  const availability = ops.get('createMetricsIntegration')?.raw['x-metrics-availability'];
  const alarmTypes = ops.get('createAlarm')?.raw['x-alarm-types-by-plan'];
  if (!availability || !alarmTypes) {
    throw new Error(
      'the instance document must carry x-metrics-availability on createMetricsIntegration and x-alarm-types-by-plan on createAlarm',
    );
  }
  return {
    metricsAvailability: availability as ContractRules['metricsAvailability'],
    alarmTypesByPlan: alarmTypes as ContractRules['alarmTypesByPlan'],
  };
}
