// The audit log of the customer interface, as CSV text for one month.
import { describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { requireRoleKey } from './role-keys.js';
import { expectBadRequest, expectMethodNotAllowed, parseCsv, randomEmail } from './helpers.js';

const t = useContract();

const HEADER = ['Timestamp', 'Event', 'Source', 'User', 'Extras'];
const TIMESTAMP = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d UTC$/;

const csv = async (timestamp?: string) => {
  const res = await t.api.customer('getAuditLogCsv', timestamp === undefined ? {} : { query: { timestamp } });
  expect(res.status, res.text).toBe(200);
  return { res, rows: parseCsv(res.text) };
};

describe('getAuditLogCsv', () => {
  it('answers CSV text that starts with the exact header line', async () => {
    const { res, rows } = await csv();
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.text).toMatch(/^Timestamp,Event,Source,User,Extras\r?\n/);
    expect(rows[0]).toEqual(HEADER);
    for (const row of rows.slice(1)) {
      expect(row).toHaveLength(5);
      expect(row[0]).toMatch(TIMESTAMP);
    }
  });

  it('records an instance creation in the latest month, with the acting user’s e-mail and key = value extras', async () => {
    const { id } = await createInstance(t);
    const { rows } = await csv();
    const row = rows
      .slice(1)
      .find((r) => r[1] === 'instance.create' && r[4]!.split(', ').includes(`instance_id = ${id}`));
    expect(row, `no instance.create row for instance ${id}`).toBeDefined();
    const team = (await t.api.customer('listTeamMembers')).body as { email: string }[];
    expect(team.map((m) => m.email)).toContain(row![3]);
    for (const pair of row![4]!.split(', ')) expect(pair).toMatch(/^[^=]+ = .*$/);
    // the month of the row, asked for explicitly, holds the same row
    const month = row![0]!.slice(0, 7);
    expect((await csv(month)).rows).toContainEqual(row);
  });

  it('records a team invitation and a removal', async () => {
    const email = randomEmail('audit');
    expect((await t.api.customer('inviteTeamMember', { body: { email } })).status).toBe(200);
    expect((await t.api.customer('removeTeamMember', { body: { email } })).status).toBe(200);
    const rows = (await csv()).rows.slice(1).filter((r) => r[4]!.includes(email));
    expect(rows.map((r) => r[1])).toEqual(['team.invite', 'team.remove']);
  });

  it('lists the rows of a month oldest first and only rows of that month', async () => {
    await createInstance(t);
    const { rows } = await csv();
    const month = rows[1]![0]!.slice(0, 7);
    const stamps = rows.slice(1).map((r) => r[0]!);
    expect(stamps.every((s) => s.startsWith(month))).toBe(true);
    expect(stamps).toEqual([...stamps].sort());
  });

  it('gives the header line only for a month without events', async () => {
    const { rows } = await csv('2001-01');
    expect(rows).toEqual([HEADER]);
  });

  it('refuses a timestamp not of the form yyyy-mm (400 naming timestamp)', async () => {
    expectBadRequest(await t.api.customer('getAuditLogCsv', { query: { timestamp: '2026-13' } }), 'timestamp');
    expectBadRequest(await t.api.customer('getAuditLogCsv', { query: { timestamp: 'last month' } }), 'timestamp');
  });

  it('is closed to every role but admin (403)', async ({ skip }) => {
    for (const role of ['devops', 'member', 'monitor', 'billing manager'] as const) {
      expect((await t.api.customer('getAuditLogCsv', { key: requireRoleKey(t, role, skip) })).status, role).toBe(403);
    }
  });

  it('answers 401 with a wrong key and 405 for POST', async () => {
    expect((await t.api.customer('getAuditLogCsv', { key: 'wrong' })).status).toBe(401);
    await expectMethodNotAllowed(t, 'getAuditLogCsv', 'POST', ['GET']);
  });
});
