/** r3 as separate processes: `r3 serve` children and one-shot CLI runs (the real binary). */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const R3_BIN = path.join(ROOT, 'bin/r3.js');

/**
 * The master key test processes and apps use: without one r3 generates a key under ./.r3 (mode 0700)
 * in the working tree.
 */
export const TEST_SECRET_KEY = 'r3-test-master-secret-not-for-production-0123456789';

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
  output(): string;
}

/** Starts `r3 serve` with `env` (plus the parent's PATH) and resolves once it listens. */
export function spawnServe(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [R3_BIN, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      R3_LOG_LEVEL: 'warn',
      R3_SECRET_KEY: TEST_SECRET_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`r3 serve did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /r3 listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1] as string,
          child,
          output: () => output,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`r3 serve exited with ${code}:\n${output}`));
    });
  });
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `r3 <args>` to completion. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [R3_BIN, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Creates an owner token with every scope in `org` through the CLI (`r3 token create --json`), on the
 * database at `database` (a URL), or the one an environment names (`R3_DATA_DIR`: an embedded one).
 */
export async function createCliToken(
  database: string | Record<string, string>,
  org: string,
): Promise<{ id: string; token: string }> {
  const created = await runCli(
    [
      'token',
      'create',
      ...['--org', org, '--user', 'owner', '--role', 'owner', '--name', org],
      ...['--scope', 'read:all,write:resources,run:invoke,run:approve', '--json'],
    ],
    typeof database === 'string' ? { DATABASE_URL: database } : database,
  );
  if (created.code !== 0) throw new Error(`r3 token create failed: ${created.stderr}`);
  return JSON.parse(created.stdout);
}
