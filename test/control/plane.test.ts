// The control plane as the server wires it (src/control/plane.ts) and its document
// (src/control/document.ts): the journal's size, what the journal records, and the document read
// and compiled once.
import { beforeEach, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { ControlPlane } from '../../src/control/plane.js';
import { ControlDocument } from '../../src/control/document.js';

let tusk: Tusk;
const plane = () => new ControlPlane({ schemas: tusk.deps.schemas, registry: tusk.registry });

describe('ControlPlane', () => {
  beforeEach(async () => {
    tusk = await createTusk({ log: 'off' });
  });

  it("journals into the registry's journal, which keeps journalSize requests when given, 1000 by default", async () => {
    expect(tusk.registry.journal.capacity).toBe(1000);
    const small = await createTusk({ log: 'off', registry: { journalSize: 5 } });
    expect(small.registry.journal.capacity).toBe(5);
  });

  it('has loaded no state without a state file', () => {
    expect(plane().loadedState).toBe(false);
    expect(plane().state).toBeUndefined();
  });

  it('journals every path outside /__tusk/, those that merely begin with /__tusk included', async () => {
    for (const path of ['/__tuskish', '/__tusk-x/y', '/api/nope'])
      await tusk.customer.fetch(new Request(`http://tusk${path}`));
    await tusk.customer.fetch(new Request('http://tusk/__tusk/clock'));
    expect(tusk.registry.journal.last().map((e) => [e.path, e.status])).toEqual([
      ['/__tuskish', 404],
      ['/__tusk-x/y', 404],
      ['/api/nope', 404],
    ]);
  });

  it('journals the time to answer in ms, to a tenth of a ms, and passes the response on', () => {
    const p = plane();
    const seen: number[] = [];
    const observe = p.observer('instance', (_r, ms) => seen.push(ms));
    observe({ method: 'GET', path: '/api/alarms', status: 200 }, 12.34);
    observe({ method: 'POST', path: '/api/alarms', status: 201 }, 0.06);
    expect(tusk.registry.journal.last().map((e) => [e.api, e.method, e.path, e.status, e.ms])).toEqual([
      ['instance', 'GET', '/api/alarms', 200, 12.3],
      ['instance', 'POST', '/api/alarms', 201, 0.1],
    ]);
    expect(seen).toEqual([12.34, 0.06]);
  });
});

describe('ControlDocument', () => {
  it('reads the document once and compiles each schema once', () => {
    const doc = new ControlDocument();
    expect(doc.document()).toBe(doc.document());
    expect(doc.schema('State')).toBe(doc.schema('State'));
    expect(doc.schema('Clock')).not.toBe(doc.schema('State'));
  });
});
