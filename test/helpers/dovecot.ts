/**
 * A private Dovecot IMAP server per test file: its own configuration, port, run directory and
 * Maildir tree under a temp directory, started as a child of the test process (never the system
 * service) and stopped by its pid. Users log in with plain passwords from a passwd-file.
 *
 * Tests that need it run whenever the `dovecot` binary exists; without it they are skipped with a
 * printed reason, except under `CI`, where a missing Dovecot fails the suite (`.ci/run` installs
 * Debian's dovecot-imapd):
 *
 * ```ts
 * const dovecot = probeDovecot();
 * describe.skipIf(dovecot.skip)('…', () => {
 *   beforeAll(async () => { requireDovecot(dovecot); server = await startDovecot({alice: 'pw'}); });
 * ```
 */

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';

const CANDIDATES = ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot', '/opt/homebrew/sbin/dovecot'];

export interface DovecotProbe {
  binary: string | null;
  /** `CI` is set: Dovecot tests must run. */
  required: boolean;
  skip: boolean;
  reason?: string;
}

function ciRequired(): boolean {
  const ci = process.env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== '' && ci !== '0' && ci !== 'false';
}

/** Finds the `dovecot` binary; prints why the tests will be skipped when it is missing. */
export function probeDovecot(): DovecotProbe {
  const binary = CANDIDATES.find((c) => existsSync(c)) ?? null;
  const required = ciRequired();
  const reason = binary ? undefined : `no dovecot binary (looked in ${CANDIDATES.join(', ')})`;
  const skip = binary === null && !required;
  if (skip) {
    console.warn(
      `[dovecot] ${reason}: skipping the IMAP tests. Install Debian's dovecot-imapd to run them; set CI=1 to make this a failure.`,
    );
  }
  return { binary, required, skip, ...(reason ? { reason } : {}) };
}

/** For `beforeAll`: throws unless Dovecot is there (so under `CI` a missing one fails the suite). */
export function requireDovecot(probe: DovecotProbe): asserts probe is DovecotProbe & { binary: string } {
  if (!probe.binary) throw new Error(`Dovecot is required (CI is set) but missing: ${probe.reason}`);
}

export interface Dovecot {
  host: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

/** Runs `fn` on an IMAP session of `user` (password `pass`) on `imap`, logged out afterwards. */
export async function withImapSession<T>(
  imap: Dovecot,
  user: string,
  pass: string,
  fn: (client: ImapFlow) => Promise<T>,
): Promise<T> {
  const client = new ImapFlow({
    host: imap.host,
    port: imap.port,
    secure: false,
    auth: { user, pass },
    logger: false,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.logout();
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('* OK'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function userName(uid: number): string {
  return execFileSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).trim();
}

/** Starts a Dovecot for `users` (name → password); mail is `<name>@example.test` by convention. */
export async function startDovecot(binary: string, users: Record<string, string>): Promise<Dovecot> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'r3-dovecot-'));
  const root = process.getuid?.() === 0;
  // Dovecot never runs mail processes as root: as root, mail belongs to `nobody`; otherwise to us.
  const mailUser = root ? 'nobody' : userName(process.getuid?.() ?? 0);
  const mailGroup = root ? 'nogroup' : execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();
  const loginUser = root ? 'dovenull' : mailUser;
  const internalUser = root ? 'dovecot' : mailUser;
  await fs.mkdir(path.join(dir, 'run'));
  await fs.mkdir(path.join(dir, 'state'));
  await fs.mkdir(path.join(dir, 'mail'));
  await fs.writeFile(
    path.join(dir, 'passwd'),
    Object.entries(users)
      .map(([name, password]) => `${name}:{PLAIN}${password}`)
      .join('\n'),
  );
  if (root) {
    // Dovecot's auth and mail processes run as other users: they must reach the directory.
    await fs.chmod(dir, 0o755);
    execFileSync('chown', ['-R', `${mailUser}:${mailGroup}`, path.join(dir, 'mail')]);
  }
  for (let tries = 0; ; tries++) {
    const port = await freePort();
    const config = `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
mail_location = maildir:${dir}/mail/%u
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
default_internal_group = ${root ? 'dovecot' : mailGroup}
first_valid_uid = 1
mail_uid = ${mailUser}
mail_gid = ${mailGroup}
namespace inbox {
  inbox = yes
  mailbox Sent {
    special_use = \\Sent
    auto = create
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
  # No auth penalty: a test of a wrong password must not slow the next tests' logins.
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  chroot =
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%n ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailUser} gid=${mailGroup} home=${dir}/mail/%n
}
`;
    await fs.writeFile(path.join(dir, 'dovecot.conf'), config);
    const child: ChildProcess = spawn(binary, ['-F', '-c', path.join(dir, 'dovecot.conf')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let up = false;
    for (let i = 0; i < 100 && child.exitCode === null; i++) {
      if (await greets(port)) {
        up = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    if (up) {
      return {
        host: '127.0.0.1',
        port,
        dir,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
          await fs.rm(dir, { recursive: true, force: true });
        },
      };
    }
    if (child.exitCode === null) child.kill('SIGKILL');
    await exited;
    const log = await fs.readFile(path.join(dir, 'dovecot.log'), 'utf8').catch(() => '');
    if (tries >= 2) {
      await fs.rm(dir, { recursive: true, force: true });
      throw new Error(`dovecot did not start: ${stderr}${log}`);
    }
  }
}
