// When the engine judges its server lost (src/databases/engine.ts), with `pg` replaced by a pool
// whose queries the test answers: no server is needed to order the events exactly.
// - A probe that finds the server gone (check(), which a failed step asks for) ends with the engine
//   restarting, so that step waits for the server instead of counting a failed attempt.
// - A loss seen just before Tusk's stop is handled (one Ctrl-C reaches Tusk and its server, and the
//   server's end may be seen first) is no loss: no warning, no restart.
import { MessageChannel, isMainThread } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresEngine } from '../../src/databases/engine.js';

const server = vi.hoisted(() => ({ up: true, signal: undefined as NodeJS.Signals | undefined }));

vi.mock('pg', async () => {
  const { stat } = await import('node:fs');
  class Pool {
    on(): this {
      return this;
    }
    async query(text: string) {
      if (!server.up) {
        // A failure is seen in the poll phase of the event loop, as a socket's would be.
        await new Promise((resolve) => stat('.', resolve));
        if (server.signal) raise(server.signal);
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999'), { code: 'ECONNREFUSED' });
      }
      return { rows: text.includes('server_version') ? [{ v: '17.10', who: 'tusk', may: true }] : [{ '?column?': 1 }] };
    }
    async end(): Promise<void> {}
  }
  return { default: { Pool } };
});

/**
 * Sends `signal` to this process; its handler runs in the next poll phase of the event loop. In a
 * worker thread (Stryker's vitest runner), which cannot handle a signal and would end the whole
 * process, a message to this thread stands in for it: its handler also runs in the next poll phase.
 */
function raise(signal: NodeJS.Signals): void {
  if (isMainThread) {
    process.kill(process.pid, signal);
    return;
  }
  const { port1, port2 } = new MessageChannel();
  port2.once('message', () => {
    port2.close();
    process.emit(signal, signal);
  });
  port1.postMessage(null);
}

const engines: PostgresEngine[] = [];
afterEach(async () => {
  server.up = true;
  server.signal = undefined;
  for (const engine of engines.splice(0)) await engine.close();
});

async function started(): Promise<{ engine: PostgresEngine; logged: string[] }> {
  const logged: string[] = [];
  const engine = new PostgresEngine(
    { kind: 'external', url: 'postgres://tusk:secret@127.0.0.1:5999/postgres' },
    (level, line) => void logged.push(`${level} ${line}`),
  );
  engines.push(engine);
  await engine.start();
  expect(engine.state).toBe('ready');
  return { engine, logged };
}

describe('the engine judges its server lost', () => {
  it('a probe that finds the server gone ends with the engine restarting, and says so once', async () => {
    const { engine, logged } = await started();
    server.up = false;
    await engine.check();
    expect(engine.state).toBe('restarting');
    expect(logged).toEqual([
      'warn tusk: databases: the Postgres server is gone (connect ECONNREFUSED 127.0.0.1:5999); instances are not ready; reconnecting when it is back',
    ]);
    server.up = true;
    await engine.whenReady();
    expect(engine.state).toBe('ready');
  });

  it('a loss seen just before Tusk handles its stop is no loss: no warning, no restart', async () => {
    const { engine, logged } = await started();
    // The signal reaches Tusk as the probe fails: its handler runs in the next poll phase, after
    // what that probe's failure set going in this one.
    process.once('SIGUSR2', () => engine.stopping());
    server.signal = 'SIGUSR2';
    server.up = false;
    await engine.check();
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
  });

  it('once Tusk is stopping, a server that ends is not started again', async () => {
    const { engine, logged } = await started();
    engine.stopping();
    server.up = false;
    await engine.check();
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
  });
});
