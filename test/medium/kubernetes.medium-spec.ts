import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parseAllDocuments } from 'yaml';
import { EnvironmentVariables } from '../../src/config/environment';
import { loadConfig } from '../../src/config/app-config';

/**
 * deploy/kubernetes, rendered by `kubectl kustomize` as an operator would apply it, every object
 * validated against the Kubernetes schemas (kubernetes-models), and checked against the code:
 * probe paths are the health routes, ports are the ones the service listens on, every
 * environment name is one the service reads, and the pods run as the security context says.
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
interface Probe {
  httpGet?: { path: string; port: string | number };
  tcpSocket?: { port: string | number };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
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

/** Renders a kustomization, in a copy with a throwaway JWT key where the overlay expects one. */
function render(path: string): K8sObject[] {
  const copy = mkdtempSync(join(tmpdir(), 'kustomize-'));
  try {
    cpSync(ROOT, copy, { recursive: true });
    const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    writeFileSync(join(copy, 'overlays/local/jwt-private-key.pem'), key);
    const yaml = execFileSync('kubectl', ['kustomize', join(copy, path)], { encoding: 'utf8' });
    return parseAllDocuments(yaml).map((d) => d.toJSON() as K8sObject);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The kubernetes-models class of an object's apiVersion and kind (core objects live under v1/). */
function modelOf(o: K8sObject): { new (data: unknown): { validate(): void } } {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : [undefined, o.apiVersion];
  const module = `kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(module) as Record<string, { new (data: unknown): { validate(): void } }>)[o.kind];
}

const podSpecOf = (o: K8sObject): PodSpec | undefined => (o.spec as { template?: { spec: PodSpec } } | undefined)?.template?.spec;

withKubectl('Kubernetes manifests (deploy/kubernetes)', () => {
  const rendered = { base: render('base'), local: render('overlays/local') };
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
  });

  it.each(['base', 'local'] as const)('%s: probes, ports and environment names are the code’s', (name) => {
    const objects = rendered[name];
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('conversation-read-api'))!;
    const loaded = loadConfig({ ...config.data, NODE_ENV: 'test' });
    for (const key of Object.keys(config.data!)) expect(envNames).toContain(key);
    const ours = objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/name'] === 'conversation-read-api' && podSpecOf(o));
    expect(ours.map((o) => o.kind).sort()).toEqual(['Deployment', 'Deployment', 'Job']);
    for (const o of ours) {
      const pod = podSpecOf(o)!;
      for (const c of pod.containers) {
        for (const e of c.env ?? []) expect(envNames.has(e.name) || ['NODE_OPTIONS'].includes(e.name)).toBe(true);
        // Secrets referenced by key: the key is the variable it fills.
        for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) expect(e.valueFrom.secretKeyRef.key).toBe(e.name);
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
