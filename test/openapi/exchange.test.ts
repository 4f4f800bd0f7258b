// The checks of one exchange (src/openapi/exchange.ts) that the suite and the proxy share: which
// operation a request is for, the form of its credentials, its parameters and body, and how a
// response departs from what its operation declares.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { ExchangeChecker } from '../../src/openapi/exchange.js';

let checker: ExchangeChecker;
beforeAll(async () => {
  checker = new ExchangeChecker(await loadDocuments());
});

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const request = (
  method: string,
  path: string,
  init: { authorization?: string; body?: string; contentType?: string; query?: string } = {},
) => ({
  method,
  path,
  query: new URLSearchParams(init.query ?? ''),
  headers: {
    ...(init.authorization !== undefined ? { authorization: init.authorization } : {}),
    ...(init.contentType ? { 'content-type': init.contentType } : {}),
  },
  body: Buffer.from(init.body ?? ''),
});

describe('ExchangeChecker.match', () => {
  it('finds the operation of a method and path, a literal path before a template, with decoded parameters', () => {
    expect(checker.match('instance', 'GET', '/api/alarms/recipients')?.op.operationId).toBe('listRecipients');
    const m = checker.match('instance', 'get', '/api/alarms/7');
    expect(m?.op.operationId).toBe('getAlarm');
    expect(m?.params).toEqual({ id: '7' });
    expect(checker.match('instance', 'PUT', '/api/integrations/logs/logs%5Fe')?.params).toEqual({
      system_or_int_id: 'logs_e',
    });
    expect(checker.match('instance', 'PUT', '/api/integrations/logs/%E0%A4%A')?.params).toEqual({
      system_or_int_id: '%E0%A4%A',
    });
  });

  it('takes a HEAD request as the GET of its path, and finds nothing for another method or path', () => {
    expect(checker.match('customer', 'HEAD', '/api/plans')?.op.operationId).toBe('listPlans');
    expect(checker.match('customer', 'DELETE', '/api/plans')).toBeUndefined();
    expect(checker.match('customer', 'GET', '/api/nowhere')).toBeUndefined();
  });
});

describe('ExchangeChecker.requestDepartures', () => {
  it("a request no operation takes: rule operation, and the stand-in's 404", async () => {
    const r = await checker.requestDepartures(
      'customer',
      request('GET', '/api/nowhere', { authorization: basic('', 'k') }),
    );
    expect(r.op).toBeUndefined();
    expect(r.departures).toEqual([
      { side: 'request', rule: 'operation', message: 'no operation of the customer interface is GET /api/nowhere' },
    ]);
    expect(r.error?.status).toBe(404);
    expect(r.error?.body).toMatchObject({
      error: 'Not found: no operation of the customer interface is GET /api/nowhere',
    });
  });

  it("credentials not in the interface's form: rule auth on Authorization, and a 401 with WWW-Authenticate", async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'no credentials: every operation needs HTTP Basic with an API key'],
      ['Bearer abc', 'the Authorization header is not HTTP Basic'],
      [
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        'the Basic credentials have no colon between user and password',
      ],
      [basic('', ''), 'the Basic credentials carry no key'],
      [basic('the-key', ''), 'the key is in the user field; this interface reads the password field (curl -u :KEY)'],
    ];
    for (const [authorization, message] of cases) {
      const r = await checker.requestDepartures(
        'customer',
        request('GET', '/api/plans', authorization === undefined ? {} : { authorization }),
      );
      expect(r.departures, String(authorization)).toEqual([
        { side: 'request', rule: 'auth', field: 'Authorization', message },
      ]);
      expect(r.error?.status).toBe(401);
      expect(r.error?.body).toMatchObject({ error: `Unauthorized: ${message}` });
      expect(r.error?.headers['WWW-Authenticate']).toMatch(/^Basic/);
    }
  });

  it('the instance interface reads the key from the password or the user field', async () => {
    for (const authorization of [basic('', 'k'), basic('k', '')]) {
      expect(
        (await checker.requestDepartures('instance', request('GET', '/api/alarms', { authorization }))).departures,
      ).toEqual([]);
    }
  });

  it('parameters and bodies as the stand-in reads them: a departure names the field and the rule', async () => {
    const authorization = basic('', 'k');
    expect(
      (await checker.requestDepartures('instance', request('GET', '/api/alarms/abc', { authorization }))).departures,
    ).toEqual([expect.objectContaining({ side: 'request', field: 'id' })]);
    const bad = await checker.requestDepartures(
      'customer',
      request('POST', '/api/instances', { authorization, body: '{"name": "n"}', contentType: 'application/json' }),
    );
    expect(bad.op?.operationId).toBe('createInstance');
    expect(bad.departures).toEqual([
      expect.objectContaining({ side: 'request', rule: 'required', field: 'plan' }),
      expect.objectContaining({ side: 'request', rule: 'required', field: 'region' }),
    ]);
    expect(bad.error?.status).toBe(400);
    const malformed = await checker.requestDepartures(
      'customer',
      request('POST', '/api/instances', { authorization, body: '{', contentType: 'application/json' }),
    );
    expect(malformed.departures).toEqual([expect.objectContaining({ field: 'body', rule: 'json' })]);
    const good = await checker.requestDepartures(
      'customer',
      request('POST', '/api/instances', {
        authorization,
        body: 'name=n&plan=hippo&region=amazon-web-services::us-east-1',
      }),
    );
    expect(good.departures).toEqual([]);
    // An integration body is read against the schema of the system its path names.
    const system = await checker.requestDepartures(
      'instance',
      request('POST', '/api/integrations/logs/logs_e', { authorization, body: '{}', contentType: 'application/json' }),
    );
    expect(system.departures).toEqual([expect.objectContaining({ field: 'token', rule: 'required' })]);
    // An update by id names no system: its body is not read against one.
    const byId = await checker.requestDepartures(
      'instance',
      request('PUT', '/api/integrations/logs/7', { authorization, body: '{}', contentType: 'application/json' }),
    );
    expect(byId.departures).toEqual([]);
  });

  it('lists every departure of a request, not only the one the stand-in answers (issue 32)', async () => {
    const authorization = basic('', 'k');
    // A parameter, a field of another alarm type, a wrong type and a range: four departures.
    const bad = await checker.requestDepartures(
      'instance',
      request('PUT', '/api/alarms/abc', {
        authorization,
        body: JSON.stringify({ type: 'notice', value_threshold: 90, enabled: 'yes', recipients: [0] }),
        contentType: 'application/json',
      }),
    );
    expect(bad.departures.map((d) => [d.side, d.field, d.rule])).toEqual([
      ['request', 'id', 'type'],
      ['request', 'value_threshold', 'notApplicable'],
      ['request', 'enabled', 'type'],
      ['request', 'recipients.0', 'minimum'],
    ]);
    // The stand-in's own answer is the first refusal of its pipeline: the parameter.
    expect(bad.error?.body).toMatchObject({ field: 'id' });
    // No credentials, and a body missing two fields: three.
    const anonymous = await checker.requestDepartures(
      'customer',
      request('POST', '/api/instances', { body: 'name=n' }),
    );
    expect(anonymous.departures.map((d) => [d.field, d.rule])).toEqual([
      ['Authorization', 'auth'],
      ['plan', 'required'],
      ['region', 'required'],
    ]);
    expect(anonymous.error?.status).toBe(401);
    // Alternatives that each require a field are one departure, worded as the stand-in words them.
    const team = await checker.requestDepartures(
      'customer',
      request('PUT', '/api/team/00000000-0000-4000-8000-000000000000', {
        authorization,
        body: '{}',
        contentType: 'application/json',
      }),
    );
    expect(team.departures).toEqual([
      expect.objectContaining({
        rule: 'required',
        message: expect.stringMatching(/role or tags: at least one of them is required/),
      }),
    ]);
  });
});

describe('ExchangeChecker.responseDepartures', () => {
  const op = () => checker.match('customer', 'GET', '/api/plans')!.op;
  const json = { 'content-type': 'application/json' };

  it('a declared status with a body of its schema conforms', () => {
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: '[]' })).toEqual([]);
  });

  it('names what departs: status, content type, JSON, schema (with the field), a required header', () => {
    expect(checker.responseDepartures(op(), { status: 418, headers: json, text: '{}' })).toEqual([
      expect.objectContaining({ side: 'response', rule: 'status' }),
    ]);
    expect(
      checker.responseDepartures(op(), { status: 200, headers: { 'content-type': 'text/plain' }, text: 'x' }),
    ).toEqual([expect.objectContaining({ rule: 'contentType' })]);
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: '[' })).toEqual([
      { side: 'response', rule: 'json', message: 'body is not valid JSON: "["' },
    ]);
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: '[{"name": 1}]' })).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/^body\.0/) })]),
    );
    expect(checker.responseDepartures(op(), { status: 401, headers: json, text: '{"error": "Unauthorized"}' })).toEqual(
      [
        {
          side: 'response',
          rule: 'header',
          field: 'WWW-Authenticate',
          message: 'header WWW-Authenticate is required on 401 but absent',
        },
      ],
    );
  });

  it('lists every departure of a body: a missing required field and a wrong type elsewhere, each with its field (issue 32)', () => {
    const found = checker.responseDepartures(op(), {
      status: 200,
      headers: json,
      text: '[{"name": "hippo", "price": "free", "backend": "postgresql"}, {"name": 7, "price": 0, "backend": "postgresql", "shared": false}]',
    });
    expect(found.map((d) => [d.field, d.rule])).toEqual([
      ['body.0.shared', 'required'],
      ['body.0.price', 'type'],
      ['body.1.name', 'type'],
    ]);
    expect(found[1]!.message).toBe('body does not match the 200 schema: body 0.price: must be number');
  });

  it('the answer to a HEAD request is checked for status and headers only', () => {
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: '' }, { head: true })).toEqual([]);
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: '' })).toEqual([
      expect.objectContaining({ rule: 'json' }),
    ]);
  });

  it('says each departure in words: what was sent and what the document declares', () => {
    const plain = { 'content-type': 'text/plain' };
    expect(checker.responseDepartures(op(), { status: 418, headers: json, text: '{}' })).toStrictEqual([
      {
        side: 'response',
        rule: 'status',
        message: 'status 418 is not declared (declared: 200, 400, 401, 405, 429, 500)',
      },
    ]);
    expect(checker.responseDepartures(op(), { status: 200, headers: plain, text: 'x' })).toStrictEqual([
      {
        side: 'response',
        rule: 'contentType',
        message: 'content type "text/plain" is not declared for 200 (declared: application/json)',
      },
    ]);
    expect(checker.responseDepartures(op(), { status: 200, headers: {}, text: '[]' })).toStrictEqual([
      {
        side: 'response',
        rule: 'contentType',
        message: 'content type "" is not declared for 200 (declared: application/json)',
      },
    ]);
    // A header sent twice is read as its values joined, as HTTP does.
    expect(
      checker.responseDepartures(op(), {
        status: 429,
        headers: { ...json, 'retry-after': ['1', 'x'] },
        text: '{"error":"slow down"}',
      }),
    ).toStrictEqual([
      {
        side: 'response',
        rule: 'header',
        field: 'Retry-After',
        message: 'header Retry-After "1, x": must match the form ^[0-9]+$',
      },
    ]);
    const long = `[${'1,'.repeat(60)}`;
    expect(checker.responseDepartures(op(), { status: 200, headers: json, text: long })).toStrictEqual([
      { side: 'response', rule: 'json', message: `body is not valid JSON: ${JSON.stringify(long.slice(0, 80))}` },
    ]);
  });

  it('reads the content type without its parameters and in any case', () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON'])
      expect(
        checker.responseDepartures(op(), { status: 200, headers: { 'content-type': type }, text: '[]' }),
        type,
      ).toStrictEqual([]);
  });

  it('a status that declares no body, answered with one, departs (rule body)', () => {
    const del = checker.match('instance', 'DELETE', '/api/alarms/1')!.op;
    expect(checker.responseDepartures(del, { status: 204, headers: json, text: '{"x":1}' })).toEqual([
      expect.objectContaining({ rule: 'body' }),
    ]);
    expect(checker.responseDepartures(del, { status: 204, headers: {}, text: '' })).toEqual([]);
    expect(checker.responseDepartures(del, { status: 204, headers: {} })).toEqual([]);
    expect(checker.responseDepartures(del, { status: 204, headers: json, text: '{"x":1}' })).toStrictEqual([
      { side: 'response', rule: 'body', message: 'status 204 declares no body, but one was sent (application/json)' },
    ]);
    expect(checker.responseDepartures(del, { status: 204, headers: {}, text: 'x' })).toStrictEqual([
      { side: 'response', rule: 'body', message: 'status 204 declares no body, but one was sent (no content type)' },
    ]);
  });
});
