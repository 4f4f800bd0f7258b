// InstanceStore's revision, as the account's cached instance list (account-views.ts) sees it: every
// change of a summary field shows in the next listing, also when one request changes two of them.
import { beforeEach, describe, expect, it } from 'vitest';
import type { AccountStore } from '../../../src/resources/account.js';
import type { ApiKeyRecord } from '../../../src/domain/types.js';
import { setup, type Setup } from '../instance-setup.js';

let s: Setup;
let account: AccountStore;
let admin: ApiKeyRecord;
beforeEach(async () => {
  s = await setup();
  const principal = s.registry.authenticateCustomer('tusk-admin-key')!;
  account = principal.account;
  admin = principal.key;
});

const json = () => Buffer.from(account.instances.listJson()).toString();
const same = () => expect(json()).toBe(JSON.stringify(account.instances.list()));
const create = () =>
  account.instances.create({ name: 'orders-db', plan: 'hippo', region: 'amazon-web-services::us-east-1' }, admin);
const summaryOf = (id: number) =>
  (JSON.parse(json()) as { id: number; name: string; tags: string[]; plan: string; url: string }[]).find(
    (x) => x.id === id,
  )!;

describe('the cached instance list after two changes of one instance', () => {
  it('shows a new name and new tags given in one update', () => {
    const { id } = create();
    json();
    account.instances.update(id, { name: 'renamed', tags: ['prod'] }, admin);
    expect(summaryOf(id)).toMatchObject({ name: 'renamed', tags: ['prod'] });
    same();
  });

  it('shows a new name and a new plan given in one update', () => {
    const { id } = create();
    const other = account.catalogue.plans.find((p) => !p.shared && p.name !== 'hippo')!;
    json();
    account.instances.update(id, { name: 'renamed', plan: other.name }, admin);
    expect(summaryOf(id)).toMatchObject({ name: 'renamed', plan: other.name });
    same();
  });

  it('shows a new password in the url after a rename', () => {
    const { id } = create();
    const before = summaryOf(id).url;
    account.instances.update(id, { name: 'renamed' }, admin);
    account.instanceStore(id)!.rotatePassword();
    expect(summaryOf(id).url).not.toBe(before);
    same();
  });
});
