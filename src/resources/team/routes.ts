import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { bytesAnswer, operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

type Ops = CustomerOperations;

export function teamApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<Ops, CustomerEnv>(route);
  app.get(
    '/',
    ...op('listTeamMembers', (c) => {
      // The bytes the store keeps until the team changes (account-views.ts: the same JSON as the list).
      return bytesAnswer(c, c.get('principal').account.team.listJson());
    }),
  );
  app.post(
    '/invite',
    ...op('inviteTeamMember', (c, { body }) => {
      return c.get('principal').account.team.invite(body, c.get('principal').key);
    }),
  );
  app.post(
    '/remove',
    ...op('removeTeamMember', (c, { body }) => {
      return c.get('principal').account.team.remove(body.email, c.get('principal').key);
    }),
  );
  app.put(
    '/:user_id',
    ...op('updateTeamMember', (c, { params, body }) => {
      return c.get('principal').account.team.update(params.user_id, body, c.get('principal').key);
    }),
  );
  return app;
}
