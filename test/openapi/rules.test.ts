// src/openapi/rules.ts: the spec's rules the instance document carries as extensions. Each test reads
// a fresh copy of the document, as the operation table is memoized per document object.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocument, type OpenApiDocument } from '../../src/openapi/documents.js';
import { readContractRules } from '../../src/openapi/rules.js';

const MISSING =
  'the instance document must carry x-metrics-availability on createMetricsIntegration and x-alarm-types-by-plan on createAlarm';

/** The operation object with this operationId in a document. */
function operation(doc: OpenApiDocument, operationId: string): Record<string, unknown> {
  for (const item of Object.values(doc.paths)) {
    for (const raw of Object.values(item)) {
      if ((raw as { operationId?: unknown } | undefined)?.operationId === operationId)
        return raw as Record<string, unknown>;
    }
  }
  throw new Error(`no operation ${operationId}`);
}

/** Removes the operation with this operationId from its path item. */
function removeOperation(doc: OpenApiDocument, operationId: string): void {
  for (const item of Object.values(doc.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if ((raw as { operationId?: unknown } | undefined)?.operationId === operationId) delete item[method];
    }
  }
}

describe('readContractRules', () => {
  let instance: OpenApiDocument;
  beforeAll(async () => {
    instance = await loadDocument('instance');
  });

  it('reads the availability table of createMetricsIntegration and the alarm types by plan of createAlarm', () => {
    const doc = structuredClone(instance);
    const rules = readContractRules(doc);
    expect(rules.alarmTypesByPlan).toEqual({
      dedicated: ['cpu', 'memory', 'disk', 'netsplit', 'server_unreachable', 'notice'],
      shared: ['notice'],
    });
    expect(Object.keys(rules.metricsAvailability)).toHaveLength(12);
    expect(rules.metricsAvailability.metrics_a).toEqual({
      primary_below_4_2: true,
      primary_from_4_2: false,
      alternative: true,
    });
    expect(rules.metricsAvailability.metrics_a_v3).toEqual({
      primary_below_4_2: false,
      primary_from_4_2: true,
      alternative: true,
    });
    expect(rules.metricsAvailability).toBe(operation(doc, 'createMetricsIntegration')['x-metrics-availability']);
  });

  it('reads whatever the document says', () => {
    const doc = structuredClone(instance);
    operation(doc, 'createAlarm')['x-alarm-types-by-plan'] = { dedicated: ['cpu'], shared: [] };
    operation(doc, 'createMetricsIntegration')['x-metrics-availability'] = {
      metrics_z: { primary_below_4_2: false, primary_from_4_2: false, alternative: true },
    };
    expect(readContractRules(doc)).toEqual({
      alarmTypesByPlan: { dedicated: ['cpu'], shared: [] },
      metricsAvailability: { metrics_z: { primary_below_4_2: false, primary_from_4_2: false, alternative: true } },
    });
  });

  it('refuses a document without x-metrics-availability', () => {
    const doc = structuredClone(instance);
    delete operation(doc, 'createMetricsIntegration')['x-metrics-availability'];
    expect(() => readContractRules(doc)).toThrow(MISSING);
  });

  it('refuses a document without x-alarm-types-by-plan', () => {
    const doc = structuredClone(instance);
    delete operation(doc, 'createAlarm')['x-alarm-types-by-plan'];
    expect(() => readContractRules(doc)).toThrow(MISSING);
  });

  it('refuses a document without the createMetricsIntegration or the createAlarm operation', () => {
    const noMetrics = structuredClone(instance);
    removeOperation(noMetrics, 'createMetricsIntegration');
    expect(() => readContractRules(noMetrics)).toThrow(MISSING);
    const noAlarm = structuredClone(instance);
    removeOperation(noAlarm, 'createAlarm');
    expect(() => readContractRules(noAlarm)).toThrow(MISSING);
  });
});
