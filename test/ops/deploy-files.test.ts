/**
 * The deployment files in ops/ (Docker is not on the test machine, so they are read, not run):
 * every variable they give r3 is one r3 reads, and together they form a configuration r3 accepts;
 * probes and health checks hit paths the server answers; ports agree across the image, compose,
 * Prometheus and the Kubernetes objects; names that refer to each other resolve.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ensureBuilt } from '../../ops/build.mjs';
import { CONFIG_VARIABLES, loadConfig } from '../../src/platform/config.js';
import { parseDuration } from '../../src/platform/util/duration.js';
import { request, startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const yamlOf = (file: string) => parse(read(file), { merge: true });

/** Sample values for the variables compose requires from the operator's shell. */
const SHELL: Record<string, string> = {
  R3_SECRET_KEY: 'k'.repeat(40),
  R3_METRICS_TOKEN: 'm'.repeat(24),
};
/** `${VAR:?message}` and `${VAR}` as compose would expand them from SHELL. */
const expand = (value: string) =>
  value.replace(/\$\{([A-Z0-9_]+)(:?[?-][^}]*)?\}/g, (_m, name: string) => {
    const sample = SHELL[name];
    if (sample === undefined) throw new Error(`compose needs ${name}, which the test does not know`);
    return sample;
  });

function expectKnownVariables(where: string, names: readonly string[]): void {
  const unknown = names.filter((name) => !CONFIG_VARIABLES.includes(name));
  expect(unknown, `${where} sets variables r3 does not read`).toEqual([]);
}

// --- the Dockerfile -------------------------------------------------------------------------------

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function dockerInstructions(): Array<{ op: string; args: string }> {
  const joined = read('ops/Dockerfile')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const cut = line.indexOf(' ');
      return { op: line.slice(0, cut).toUpperCase(), args: line.slice(cut + 1).trim() };
    });
}

const docker = dockerInstructions();
const dockerOf = (op: string) => docker.filter((i) => i.op === op).map((i) => i.args);
const dockerEnv: Record<string, string> = Object.fromEntries(
  dockerOf('ENV').flatMap((args) =>
    [...args.matchAll(/([A-Z0-9_]+)=("[^"]*"|\S+)/g)].map((m) => [m[1], (m[2] as string).replace(/"/g, '')]),
  ),
);
const imagePort = Number(dockerOf('EXPOSE')[0]);

describe('ops/Dockerfile', () => {
  it('is multi-stage on Debian trixie (glibc 2.41 loads the native uWS build), running as a non-root user', () => {
    const from = dockerOf('FROM');
    expect(from.length).toBeGreaterThanOrEqual(2);
    const base = dockerOf('ARG').find((a) => a.startsWith('NODE_IMAGE='));
    expect(base).toMatch(/^NODE_IMAGE=node:(22|24)-trixie$/);
    expect(from.some((f) => f.includes(' AS build'))).toBe(true);
    const user = dockerOf('USER').at(-1);
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
  });

  it('sets only variables r3 reads, listens where it exposes, and checks /healthz on that port', () => {
    expectKnownVariables('the Dockerfile', Object.keys(dockerEnv));
    expect(() => loadConfig(dockerEnv)).not.toThrow();
    expect(Number(dockerEnv.PORT)).toBe(imagePort);
    expect(dockerEnv.HOST).toBe('0.0.0.0');
    const [check] = dockerOf('HEALTHCHECK');
    // The check follows PORT when the operator changes it, and defaults to the exposed port.
    expect(check).toContain(`'http://127.0.0.1:' + (process.env.PORT || ${imagePort}) + '/healthz'`);
  });

  it('copies from the build context only files that exist, and runs the compiled r3', () => {
    for (const args of dockerOf('COPY').filter((a) => !a.startsWith('--from'))) {
      const sources = args.split(/\s+/).slice(0, -1);
      for (const source of sources) expect(existsSync(path.join(ROOT, source)), source).toBe(true);
    }
    expect(dockerOf('ENTRYPOINT')[0]).toBe('["node", "bin/r3.js"]');
    expect(dockerOf('CMD')[0]).toBe('["serve"]');
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.r3']));
  });
});

describe("ops/Dockerfile's runtime layout", () => {
  let dir: string;
  beforeAll(async () => {
    await ensureBuilt();
    dir = mkdtempSync(path.join(tmpdir(), 'r3-image-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves from what the runtime stage copies (no sources), without rebuilding', async () => {
    // The runtime stage's `COPY --from=build /app/<files> <dest>`, replayed from the checkout with
    // the files' times kept (as COPY keeps them); node_modules is linked, not copied.
    const workdir = dockerOf('WORKDIR').at(-1) as string;
    for (const args of dockerOf('COPY').filter((a) => a.startsWith('--from=build'))) {
      const [, ...rest] = args.split(/\s+/);
      const dest = rest.pop() as string;
      for (const source of rest) {
        const relative = path.relative(workdir, source);
        const target = path.join(dir, dest.endsWith('/') ? path.join(dest, path.basename(relative)) : dest);
        mkdirSync(path.dirname(target), { recursive: true });
        if (relative === 'node_modules') symlinkSync(path.join(ROOT, relative), target);
        else cpSync(path.join(ROOT, relative), target, { recursive: true, preserveTimestamps: true });
      }
    }
    expect(existsSync(path.join(dir, 'src'))).toBe(false);
    const stamp = statSync(path.join(dir, 'dist/app/.built')).mtimeMs;
    const entries = dockerOf('ENTRYPOINT')[0] as string;
    const [node, ...args] = [
      ...(JSON.parse(entries) as string[]),
      ...(JSON.parse(dockerOf('CMD')[0] as string) as string[]),
    ];
    expect(node).toBe('node');
    const database = await createTestDatabase();
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        ...dockerEnv,
        HOST: '127.0.0.1',
        PORT: '0',
        R3_DATA_DIR: path.join(dir, 'data'),
        DATABASE_URL: database.url,
        R3_SECRET_KEY: 'k'.repeat(40),
        R3_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString();
    });
    try {
      await expect
        .poll(() => /r3 listening on (http:\/\/\S+)/.exec(output)?.[1], { timeout: 20_000 })
        .toBeDefined();
      const url = /r3 listening on (http:\/\/\S+)/.exec(output)?.[1] as string;
      for (const probed of ['/healthz', '/readyz', '/metrics', '/docs', '/api/v1/openapi.json']) {
        expect((await fetch(`${url}${probed}`)).status, probed).toBe(200);
      }
      expect(statSync(path.join(dir, 'dist/app/.built')).mtimeMs).toBe(stamp);
      expect(readdirSync(path.join(dir, 'dist')).sort()).toEqual(['app', 'web']);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await database.drop();
    }
  });
});

// --- compose and Prometheus -----------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | number>;
  ports?: string[];
  command?: string[];
  secrets?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}

const compose = yamlOf('ops/compose.yaml') as {
  services: Record<string, ComposeService>;
  secrets: Record<string, { environment?: string }>;
};
const services = compose.services;
const r3Services = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'ops/Dockerfile');
const envOf = (service: ComposeService) =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, expand(String(v))]));

describe('ops/compose.yaml', () => {
  it('runs two r3 nodes from ops/Dockerfile, PostgreSQL 17, three clustered JetStream NATS and Prometheus', () => {
    expect(r3Services.map(([name]) => name)).toEqual(['r3-1', 'r3-2']);
    for (const [, s] of r3Services) {
      expect(path.resolve(ROOT, 'ops', s.build?.context ?? '')).toBe(ROOT);
    }
    expect(services.postgres?.image).toMatch(/^postgres:17/);
    const nats = Object.entries(services).filter(([, s]) => s.image?.startsWith('nats:'));
    expect(nats.map(([name]) => name)).toEqual(['nats-1', 'nats-2', 'nats-3']);
    for (const [name, s] of nats) {
      const args = s.command ?? [];
      expect(args).toContain('--jetstream');
      expect(args).toContain(`--name=${name}`);
      const routes = args
        .find((a) => a.startsWith('--routes='))
        ?.slice('--routes='.length)
        .split(',');
      expect(routes).toEqual(nats.map(([peer]) => `nats://${peer}:6222`));
    }
    expect(services.prometheus?.image).toMatch(/^prom\/prometheus:/);
  });

  it("gives each r3 node only variables r3 reads, making a configuration it accepts, on the image's port", () => {
    for (const [name, s] of r3Services) {
      const env = envOf(s);
      expectKnownVariables(`compose service ${name}`, Object.keys(env));
      const config = loadConfig({ ...dockerEnv, ...env });
      expect(config.port).toBe(imagePort);
      expect(config.metricsToken).toBeDefined();
      expect(config.env).toBe('live');
      // The database and NATS it names are services of the file.
      expect(new URL(config.databaseUrl as string).hostname).toBe('postgres');
      const natsHost = new URL(config.natsUrl as string).hostname;
      expect(services[natsHost]?.image).toMatch(/^nats:/);
      expect((parseDuration(String(s.stop_grace_period)) as number) / 1000).toBeGreaterThan(
        config.shutdownTimeoutMs / 1000,
      );
      const [published, target] = (s.ports?.[0] ?? '').split(':');
      expect(Number(target)).toBe(imagePort);
      expect(config.baseUrl).toBe(`http://localhost:${published}`);
    }
  });

  it('has Prometheus scrape every r3 node at /metrics with the R3_METRICS_TOKEN secret', () => {
    const prometheus = yamlOf('ops/prometheus/prometheus.yml') as {
      scrape_configs: Array<{
        metrics_path: string;
        authorization: { type: string; credentials_file: string };
        static_configs: Array<{ targets: string[] }>;
      }>;
    };
    const [job] = prometheus.scrape_configs;
    expect(job?.metrics_path).toBe('/metrics');
    expect(job?.static_configs.flatMap((c) => c.targets)).toEqual(
      r3Services.map(([name]) => `${name}:${imagePort}`),
    );
    expect(job?.authorization.type).toBe('Bearer');
    const secret = services.prometheus?.secrets?.[0] as string;
    expect(job?.authorization.credentials_file).toBe(`/run/secrets/${secret}`);
    expect(compose.secrets[secret]?.environment).toBe('R3_METRICS_TOKEN');
    const mounted = services.prometheus?.volumes?.find((v) =>
      v.endsWith(':/etc/prometheus/prometheus.yml:ro'),
    );
    expect(mounted?.split(':')[0]).toBe('./prometheus/prometheus.yml');
  });

  it('loads alerting rules that use only metrics r3 exports (docs/operations.md)', () => {
    const prometheus = yamlOf('ops/prometheus/prometheus.yml') as { rule_files: string[] };
    const volumes = services.prometheus?.volumes ?? [];
    for (const file of prometheus.rule_files) {
      const mount = volumes.find((v) => v.split(':')[1] === file);
      expect(mount, file).toBeDefined();
      expect(existsSync(path.join(ROOT, 'ops', (mount as string).split(':')[0] as string))).toBe(true);
    }
    const documented = new Set(
      [...read('docs/operations.md').matchAll(/^\| `(r3_[a-z_]+)` \|/gm)].map((m) => m[1] as string),
    );
    const rules = yamlOf('ops/prometheus/alerts.yml') as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
    };
    const exprs = rules.groups.flatMap((g) => g.rules);
    expect(exprs.length).toBeGreaterThan(5);
    for (const { alert, expr } of exprs) {
      for (const [name] of expr.matchAll(/\br3_[a-z_]+/g)) {
        const base = name.replace(/_(bucket|sum|count)$/, '');
        expect(documented.has(base), `${alert} uses ${name}`).toBe(true);
      }
    }
  });
});

// --- Kubernetes -----------------------------------------------------------------------------------

interface K8sObject {
  kind: string;
  metadata: { name: string };
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

const BASE = 'ops/k8s/base';
const kustomization = yamlOf(`${BASE}/kustomization.yaml`) as { resources: string[] };
const objects: K8sObject[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(read(`${BASE}/${file}`)).map((doc) => doc.toJS() as K8sObject),
);
const find = (kind: string) => {
  const found = objects.find((o) => o.kind === kind);
  if (!found) throw new Error(`no ${kind} in ${BASE}`);
  return found;
};
const deployment = find('Deployment');
const pod = deployment.spec.template;
const container = pod.spec.containers[0];
const configMap = find('ConfigMap');
const secret = find('Secret');
const podEnv = Object.fromEntries(
  (container.env as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]),
);
const podConfig = { ...dockerEnv, ...configMap.data, ...secret.stringData, ...podEnv };

describe('ops/k8s/base', () => {
  it('has a Deployment, Service, PodDisruptionBudget, HorizontalPodAutoscaler, ConfigMap and Secret', () => {
    expect(objects.map((o) => o.kind).sort()).toEqual(
      [
        'ConfigMap',
        'Deployment',
        'HorizontalPodAutoscaler',
        'PodDisruptionBudget',
        'Secret',
        'Service',
      ].sort(),
    );
  });

  it('gives r3 only variables it reads, making a configuration it accepts', () => {
    expectKnownVariables('the ConfigMap', Object.keys(configMap.data ?? {}));
    expectKnownVariables('the Secret', Object.keys(secret.stringData ?? {}));
    expectKnownVariables('the Deployment', Object.keys(podEnv));
    const refs = (container.envFrom as Array<Record<string, { name: string }>>).map(
      (e) => e.configMapRef?.name ?? e.secretRef?.name,
    );
    expect(refs).toEqual([configMap.metadata.name, secret.metadata.name]);
    const config = loadConfig(podConfig);
    expect(config.metricsToken).toBeDefined();
    expect(config.secretKey).toBeDefined();
    // NATS is the Helm release's Service (ops/k8s/nats).
    const nats = yamlOf('ops/k8s/nats/kustomization.yaml') as {
      helmCharts: Array<{ name: string; repo: string; releaseName: string; valuesFile: string }>;
    };
    const [chart] = nats.helmCharts;
    expect(chart).toMatchObject({ name: 'nats', repo: 'https://nats-io.github.io/k8s/helm/charts/' });
    expect(new URL(config.natsUrl as string).hostname).toBe(chart?.releaseName);
    const values = yamlOf(`ops/k8s/nats/${chart?.valuesFile}`);
    expect(values.config).toMatchObject({
      cluster: { enabled: true, replicas: 3 },
      jetstream: { enabled: true },
    });
  });

  it('agrees on ports and names: the container port is PORT and the image, probes and Service use it', () => {
    const [port] = container.ports as Array<{ name: string; containerPort: number }>;
    expect(port?.containerPort).toBe(Number(podConfig.PORT));
    expect(port?.containerPort).toBe(imagePort);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect(container[probe].httpGet.port, probe).toBe(port?.name);
    }
    const annotations = pod.metadata.annotations as Record<string, string>;
    expect(Number(annotations['prometheus.io/port'])).toBe(port?.containerPort);
    expect(annotations['prometheus.io/path']).toBe('/metrics');
    const service = find('Service');
    expect(service.spec.ports[0].targetPort).toBe(port?.name);
    const labels = pod.metadata.labels as Record<string, string>;
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    for (const selector of [service.spec.selector, find('PodDisruptionBudget').spec.selector.matchLabels]) {
      expect(labels).toMatchObject(selector);
    }
    expect(find('HorizontalPodAutoscaler').spec.scaleTargetRef).toMatchObject({
      kind: 'Deployment',
      name: deployment.metadata.name,
    });
    expect(container.image).toBe('r3');
  });

  it('runs as non-root with a writable data folder, and gives shutdown its time', () => {
    expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
    const mounts = (container.volumeMounts as Array<{ mountPath: string }>).map((m) => m.mountPath);
    expect(mounts).toContain(loadConfig(podConfig).dataDir);
    const shutdownS = (parseDuration(podConfig.R3_SHUTDOWN_TIMEOUT as string) as number) / 1000;
    const pause = Number(container.lifecycle.preStop.exec.command[1]);
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(shutdownS + pause);
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(
      find('PodDisruptionBudget').spec.minAvailable + 1,
    );
  });
});

// --- the probed paths, on a running r3 ------------------------------------------------------------

describe('the paths the deployment files probe', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  it('answer 200 on a running r3', async () => {
    const paths = new Set<string>(['/healthz', '/metrics']);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      paths.add(container[probe].httpGet.path);
    const [check] = dockerOf('HEALTHCHECK');
    paths.add((check as string).match(/'(\/[a-z]+)'/)?.[1] as string);
    expect([...paths].sort()).toEqual(['/healthz', '/metrics', '/readyz']);
    for (const probed of paths) {
      const res = await request(t.url, 'GET', probed);
      expect(res.status, `${probed}: ${res.text}`).toBe(200);
    }
  });
});
