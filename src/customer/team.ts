import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

type Ops = CustomerOperations;

export function teamApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/', route('listTeamMembers'), (c) => {
    const body: ResponseBody<Ops, 'listTeamMembers'> = c.get('principal').account.listTeamMembers();
    return c.json(body, 200);
  });
  app.post('/invite', route('inviteTeamMember'), (c) => {
    const { body } = input<Ops, 'inviteTeamMember'>(c);
    const answer: ResponseBody<Ops, 'inviteTeamMember'> = c.get('principal').account.inviteTeamMember(body, c.get('principal').key);
    return c.json(answer, 200);
  });
  app.post('/remove', route('removeTeamMember'), (c) => {
    const { body } = input<Ops, 'removeTeamMember'>(c);
    const answer: ResponseBody<Ops, 'removeTeamMember'> = c.get('principal').account.removeTeamMember(body.email, c.get('principal').key);
    return c.json(answer, 200);
  });
  app.put('/:user_id', route('updateTeamMember'), (c) => {
    const { params, body } = input<Ops, 'updateTeamMember'>(c);
    const answer: ResponseBody<Ops, 'updateTeamMember'> = c.get('principal').account.updateTeamMember(params.user_id, body, c.get('principal').key);
    return c.json(answer, 200);
  });
  return app;
}
