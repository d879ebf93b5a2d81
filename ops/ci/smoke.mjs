#!/usr/bin/env node
// Start-and-call smoke test of `r3 serve` on the Node.js running this script (CI runs it on Node 22
// and 24): a fresh database, the CLI, the server's start-up line, and a few calls through a real socket
// — a skill, a run, a list with a query string (the request that crashed r3 on Node 22 before), the
// run's event stream — then SIGTERM and a clean exit. Exits non-zero on the first thing that is wrong.
//
//   node ops/ci/smoke.mjs     (PostgreSQL at SMOKE_DATABASE_URL, default 127.0.0.1:5432)
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/r3.js');
const admin = process.env.SMOKE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `r3_smoke_${randomBytes(4).toString('hex')}`;
const url = new URL(admin);
url.pathname = `/${name}`;
const env = {
  PATH: process.env.PATH ?? '',
  DATABASE_URL: url.toString(),
  PORT: '0',
  R3_SECRET_KEY: 'smoke-test-master-key-smoke-test-master-key',
};

function check(condition, message) {
  if (!condition) throw new Error(`smoke: ${message}`);
}

async function call(base, token, method, route, body) {
  const response = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`create database ${name}`);
let server;
try {
  const cli = (args) => promisify(execFile)(process.execPath, [BIN, ...args], { cwd: ROOT, env });
  await cli(['migrate']);
  const { stdout } = await cli([
    'token',
    'create',
    '--org',
    'smoke',
    '--user',
    'ci',
    '--role',
    'owner',
    '--name',
    'smoke',
    '--scope',
    'read:all,write:resources,run:invoke,run:approve',
    '--json',
  ]);
  const { token } = JSON.parse(stdout);

  server = spawn(process.execPath, [BIN, 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`smoke: no start-up line in 30 s:\n${out}`)), 30_000);
    server.once('exit', (code) => reject(new Error(`smoke: r3 serve exited with ${code}:\n${out}`)));
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /r3 listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  // The start-up log says which HTTP engine serves (a native uWS build, or node:http with a warning).
  const engine = /HTTP: ([^;]+);/.exec(out)?.[1];
  check(engine, `the start-up log names no HTTP engine:\n${out}`);

  check((await fetch(`${base}/healthz`)).status === 200, '/healthz is not 200');
  const skill = await call(base, token, 'POST', '/api/v1/skills', {
    manifest: {
      slug: 'hello',
      name: 'Hello',
      description: 'd',
      category: 'c',
      status: 'active',
      form: 'prompt',
      requiresApproval: false,
    },
    promptMd: 'Hello {{input.name}}',
  });
  check(skill.status === 201, `POST /skills answered ${skill.status}: ${JSON.stringify(skill.body)}`);
  const run = await call(base, token, 'POST', '/api/v1/skills/hello/runs', { input: { name: 'ci' } });
  check(run.status === 202, `POST /skills/hello/runs answered ${run.status}`);
  const events = await fetch(`${base}/api/v1/runs/${run.body.runId}/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
  });
  const stream = await events.text(); // ends after the terminal event
  check(/event: completed/.test(stream), `the run's stream did not complete:\n${stream}`);
  const list = await call(base, token, 'GET', '/api/v1/runs?limit=5&status=completed');
  check(list.status === 200 && list.body.runs.length === 1, `GET /runs?… answered ${list.status}`);
  const detail = await call(base, token, 'GET', `/api/v1/runs/${run.body.runId}`);
  check(
    detail.body?.output?.text === 'Hello ci',
    `the run's output is ${JSON.stringify(detail.body?.output)}`,
  );

  server.removeAllListeners('exit');
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  const code = await exited;
  server = null;
  check(code === 0, `r3 serve exited with ${code} after SIGTERM`);
  console.log(`smoke: ok on Node ${process.version} (HTTP engine: ${engine})`);
} finally {
  server?.kill('SIGKILL');
  await client.query(`drop database if exists ${name} with (force)`);
  await client.end();
}
