// A handler that answers without a body (NO_CONTENT, src/http/operation.ts) under an answer mode
// that picks a documented success code with a body (openapi/CONVENTIONS.md, `--vary-success`): the
// answer carries the documented example as JSON, and the 204 stays empty.
import { describe, expect, it } from 'vitest';
import { tuskForTest } from '../support/in-process.js';

const KEY = 'tusk-instance-1-key';

describe('an operation answered without a body, under --vary-success', () => {
  it('answers 200 with the documented example as JSON on one call and an empty 204 on the next, and both delete', async () => {
    const { send } = await tuskForTest({ varySuccess: true });
    const alarms = (await send('instance', 'GET', '/api/alarms', { key: KEY })).body as { id: number }[];
    expect(alarms.length).toBeGreaterThanOrEqual(2);
    const answers = [];
    for (const alarm of alarms.slice(0, 2))
      answers.push(await send('instance', 'DELETE', `/api/alarms/${alarm.id}`, { key: KEY }));
    const ok = answers.find((a) => a.status === 200)!;
    const empty = answers.find((a) => a.status === 204)!;
    // deleteAlarm documents `{}` as its 200 example.
    expect(ok.text).toBe('{}');
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(empty.text).toBe('');
    const left = (await send('instance', 'GET', '/api/alarms', { key: KEY })).body as { id: number }[];
    expect(left.map((a) => a.id)).toEqual(alarms.slice(2).map((a) => a.id));
  });
});
