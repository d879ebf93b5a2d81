/** `r3 token create|list|revoke` (README "Command line"). */
import { parseArgs } from 'node:util';
import { DEFAULT_SCOPES, parseScopes, ROLES, type Role } from '../../platform/auth/principal.js';
import { type CliCommand, type CliContext, UsageError } from '../../platform/cli.js';
import type { TokensApi } from './index.js';

const ORG_SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** `r3 token …`. */
export const tokenCommand: CliCommand<TokensApi> = {
  name: 'token',
  usage: `  r3 token create --org <slug> --user <userId> --role <role> --name <label>
                  [--scope <scopes>] [--expires <ISO time>] [--json]
  r3 token list --org <slug> [--json]
  r3 token revoke <id> [--json]`,
  run(args, ctx) {
    const [sub, ...rest] = args;
    const run = sub === 'create' ? create : sub === 'list' ? list : sub === 'revoke' ? revoke : null;
    if (!run) throw new UsageError('expected "create", "list" or "revoke"');
    return run(rest, ctx);
  },
};

async function create(args: string[], { out, open }: CliContext<TokensApi>): Promise<number> {
  const { values } = parse(args, {
    org: { type: 'string' },
    user: { type: 'string' },
    role: { type: 'string' },
    name: { type: 'string' },
    scope: { type: 'string' },
    expires: { type: 'string' },
    json: { type: 'boolean' },
  });
  const org = required(values.org, 'org');
  if (!ORG_SLUG.test(org)) throw new UsageError('--org must be a slug: lowercase letters, digits, - and _');
  const userId = required(values.user, 'user');
  if (userId.length > 128) throw new UsageError('--user is at most 128 characters');
  const role = required(values.role, 'role');
  if (!(ROLES as readonly string[]).includes(role))
    throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const name = required(values.name, 'name');
  const { scopes, unknown } = values.scope
    ? parseScopes(values.scope)
    : { scopes: [...DEFAULT_SCOPES], unknown: [] };
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}`);
  if (scopes.length === 0) throw new UsageError('--scope names no scope');
  let expiresAt: Date | null = null;
  if (values.expires) {
    expiresAt = new Date(values.expires);
    if (Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires must be an ISO 8601 time');
  }
  const { tokens } = await open();
  const created = await tokens.create({ org, userId, role: role as Role, name, scopes, expiresAt });
  if (values.json) out(JSON.stringify(created));
  else {
    out(
      `Token ${created.id} for ${created.userId} (${created.role}) in ${created.org}, scope ${created.scope}.`,
    );
    out('Copy it now; it is not shown again:');
    out(created.token);
  }
  return 0;
}

async function list(args: string[], { out, err, open }: CliContext<TokensApi>): Promise<number> {
  const { values } = parse(args, { org: { type: 'string' }, json: { type: 'boolean' } });
  const org = required(values.org, 'org');
  const found = await (await open()).tokens.list(org);
  if (!found) {
    err(`r3 token list: no org "${org}"`);
    return 1;
  }
  if (values.json) out(JSON.stringify(found));
  else {
    for (const t of found) {
      const state = t.revokedAt
        ? 'revoked'
        : t.expiresAt && Date.parse(t.expiresAt) <= Date.now()
          ? 'expired'
          : 'active';
      out(
        `${t.id}  ${state.padEnd(7)}  ${t.userId} (${t.role})  ${t.scope}  "${t.name}"  last used ${t.lastUsedAt ?? 'never'}`,
      );
    }
  }
  return 0;
}

async function revoke(args: string[], { out, err, open }: CliContext<TokensApi>): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } }, true);
  const id = positionals[0];
  if (!id) throw new UsageError('usage: r3 token revoke <id>');
  const found = await (await open()).tokens.revoke(id);
  if (!found) {
    err(`r3 token revoke: no token "${id}"`);
    return 1;
  }
  out(values.json ? JSON.stringify({ id, revoked: true }) : `Token ${id} revoked.`);
  return 0;
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

function parse<O extends Options>(args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(value: string | boolean | undefined, flag: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${flag} is required`);
  return value;
}
