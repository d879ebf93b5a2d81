/**
 * `r3 login-link` (docs/api.md#browser-sessions-the-web-ui): a one-time browser sign-in URL for a user,
 * valid 10 minutes, optionally opening a given page (`--next /review/runs/5`); and
 * `r3 session revoke`: end every browser session of a user at once.
 */
import { parseArgs } from 'node:util';
import { ROLES, type Role } from '../../platform/auth/principal.js';
import { type CliCommand, UsageError } from '../../platform/cli.js';
import type { WebApi } from './index.js';
import { isSitePath, MissingUserError } from './sessions/session-service.js';

const ORG_SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export const loginLinkCommand: CliCommand<WebApi> = {
  name: 'login-link',
  usage: '  r3 login-link --org <slug> --user <userId> [--role <role>] [--next <path>] [--json]',
  async run(args, { out, err, open }) {
    let values: { org?: string; user?: string; role?: string; next?: string; json?: boolean };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          org: { type: 'string' },
          user: { type: 'string' },
          role: { type: 'string' },
          next: { type: 'string' },
          json: { type: 'boolean' },
        },
        strict: true,
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (!values.org) throw new UsageError('--org is required');
    if (!ORG_SLUG.test(values.org))
      throw new UsageError('--org must be a slug: lowercase letters, digits, - and _');
    if (!values.user) throw new UsageError('--user is required');
    if (values.user.length > 128) throw new UsageError('--user is at most 128 characters');
    if (values.role !== undefined && !(ROLES as readonly string[]).includes(values.role)) {
      throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    }
    if (values.next !== undefined && !isSitePath(values.next)) {
      throw new UsageError('--next must be a path of this site, such as /review/runs/5');
    }
    const { sessions } = await open();
    try {
      const link = await sessions.createLoginLink({
        org: values.org,
        userId: values.user,
        ...(values.role ? { role: values.role as Role } : {}),
        ...(values.next !== undefined ? { next: values.next } : {}),
      });
      if (values.json) out(JSON.stringify(link));
      else {
        out(`Sign-in link for ${values.user} in ${values.org}, usable once until ${link.expiresAt}:`);
        out(link.url);
      }
      return 0;
    } catch (error) {
      if (!(error instanceof MissingUserError)) throw error;
      err(`r3 login-link: ${error.message}`);
      return 1;
    }
  },
};

/** `r3 session revoke --org <slug> --user <userId> [--json]`. */
export const sessionCommand: CliCommand<WebApi> = {
  name: 'session',
  usage: '  r3 session revoke --org <slug> --user <userId> [--json]',
  async run(args, { out, err, open }) {
    const [sub, ...rest] = args;
    if (sub !== 'revoke') throw new UsageError('expected "revoke"');
    let values: { org?: string; user?: string; json?: boolean };
    try {
      ({ values } = parseArgs({
        args: rest,
        options: { org: { type: 'string' }, user: { type: 'string' }, json: { type: 'boolean' } },
        strict: true,
      }));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (!values.org) throw new UsageError('--org is required');
    if (!values.user) throw new UsageError('--user is required');
    const ended = await (await open()).sessions.revokeUserSessions(values.org, values.user);
    if (ended === null) {
      err(`r3 session revoke: no user "${values.user}" in org "${values.org}"`);
      return 1;
    }
    out(values.json ? JSON.stringify({ revoked: ended }) : `Ended ${ended} session(s) of ${values.user}.`);
    return 0;
  },
};
