// An account's team: members with their roles (and, for members and monitors, tags), invited,
// removed and updated through the customer interface; the list as the bytes of its answer, made
// again only after a change. E-mails compare without case. What a removal ends beyond the team (the
// keys acting for the member) is the account's to wire (`removed`, resources/account.ts).
import { randomUUID } from 'node:crypto';
import { ApiError, invalid, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import type {
  ApiKeyRecord,
  InviteTeamMemberBody,
  Role,
  TeamMember,
  TeamMemberState,
  UpdateTeamMemberBody,
} from '../../domain/types.js';
import type { AuditWriter } from '../auditlog/audit-log.js';

/** The fixed answers of the team operations (the spec's texts). */
export const TEAM_MESSAGES = {
  invite: 'Email invitation sent',
  remove: 'The user has been deleted from team',
  update: 'Role and tags updated for user.',
} as const;

/** Roles that may carry tags. */
const TAGGED_ROLES: readonly Role[] = ['member', 'monitor'];

const splitTags = (tags: string) =>
  tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

const copy = (m: TeamMemberState): TeamMemberState => ({
  id: m.id,
  email: m.email,
  tfa_auth_enabled: m.tfa_auth_enabled,
  roles: [...m.roles],
  tags: [...m.tags],
});

export interface TeamHooks {
  /** Writes the audit row of a change. */
  log: AuditWriter;
  /** Told of a member removed (after the removal). */
  removed: (member: TeamMemberState) => void;
}

export class Team {
  private readonly members: TeamMemberState[];
  /** The team by lower-cased e-mail: an invite or a removal finds the member without a walk. */
  private readonly byEmail = new Map<string, TeamMemberState>();
  private changes = 0;
  private last: { version: number; bytes: Uint8Array } | undefined;

  constructor(
    members: readonly TeamMemberState[],
    private readonly hooks: TeamHooks,
  ) {
    this.members = members.map(copy);
    for (const m of this.members) this.byEmail.set(m.email.toLowerCase(), m);
  }

  /** Changes with every invite, removal and update of a member. */
  get version(): number {
    return this.changes;
  }

  /** Whether a member has this e-mail (without case). */
  has(email: string): boolean {
    return this.byEmail.has(email.toLowerCase());
  }

  list(): TeamMember[] {
    return this.members.map(({ id, email, tfa_auth_enabled, roles }) => ({
      id,
      email,
      tfa_auth_enabled,
      roles: [...roles],
    }));
  }

  /** list() as the bytes of its answer, made again only after a change to the team. */
  listJson(): Uint8Array {
    if (this.last?.version !== this.changes)
      this.last = { version: this.changes, bytes: Buffer.from(JSON.stringify(this.list())) };
    return this.last.bytes;
  }

  invite(body: InviteTeamMemberBody, actor: ApiKeyRecord): { message: typeof TEAM_MESSAGES.invite } {
    const role = body.role ?? 'member';
    if (this.has(body.email)) throw invalid('email', 'not-a-member', `${body.email} is already a member of the team`);
    if (body.tags !== undefined && !TAGGED_ROLES.includes(role))
      throw invalid('tags', 'role', `tags are only allowed with role member or monitor, not ${role}`);
    const tags = body.tags === undefined ? [] : splitTags(body.tags);
    if (this.members.length >= LIST_CAPS.teamMembersPerAccount) {
      const cap = LIST_CAPS.teamMembersPerAccount;
      throw limitReached('team', `a team has at most ${cap} members; remove one to invite another`);
    }
    const member: TeamMemberState = {
      id: randomUUID(),
      email: body.email,
      tfa_auth_enabled: false,
      roles: [role],
      tags,
    };
    this.members.push(member);
    this.byEmail.set(body.email.toLowerCase(), member);
    this.changes++;
    this.hooks.log(actor, 'team.invite', [
      ['email', body.email],
      ['role', role],
      ...(tags.length ? [['tags', tags.join(',')] as [string, string]] : []),
    ]);
    return { message: TEAM_MESSAGES.invite };
  }

  remove(email: string, actor: ApiKeyRecord): { message: typeof TEAM_MESSAGES.remove } {
    const found = this.byEmail.get(email.toLowerCase());
    if (!found) throw new ApiError(404, `Not found: no team member with the e-mail ${email}`);
    this.members.splice(this.members.indexOf(found), 1);
    this.byEmail.delete(email.toLowerCase());
    this.changes++;
    this.hooks.removed(found);
    this.hooks.log(actor, 'team.remove', [
      ['user_id', found.id],
      ['email', found.email],
    ]);
    return { message: TEAM_MESSAGES.remove };
  }

  update(userId: string, body: UpdateTeamMemberBody, actor: ApiKeyRecord): { message: typeof TEAM_MESSAGES.update } {
    const member = this.members.find((m) => m.id.toLowerCase() === userId.toLowerCase());
    if (!member) throw new ApiError(404, `Not found: no team member with id ${userId}`);
    if (body.role === undefined && body.tags === undefined)
      throw invalid('body', 'minProperties', 'give at least one of role and tags');
    const roles: Role[] = body.role !== undefined ? [body.role] : member.roles;
    const tagged = roles.every((r) => TAGGED_ROLES.includes(r));
    if (body.tags !== undefined && !tagged)
      throw invalid('tags', 'role', `tags are only allowed for role member or monitor, not ${roles.join(', ')}`);
    member.roles = [...roles];
    this.changes++;
    // Given tags replace the member's tags; a role that takes no tags drops them.
    if (body.tags !== undefined) member.tags = splitTags(body.tags);
    else if (!tagged) member.tags = [];
    this.hooks.log(actor, 'team.update', [
      ['user_id', member.id],
      ['email', member.email],
      ...(body.role !== undefined ? [['role', body.role] as [string, string]] : []),
      ...(body.tags !== undefined ? [['tags', member.tags.join(',')] as [string, string]] : []),
    ]);
    return { message: TEAM_MESSAGES.update };
  }

  /** The tags of a team member (not part of the API's records). */
  tags(userId: string): string[] | undefined {
    return this.members.find((m) => m.id === userId)?.tags.slice();
  }

  toJSON(): TeamMemberState[] {
    return this.members.map(copy);
  }
}
