import path from "node:path";
import type { IDeployment } from "kubernetes-models/apps/v1/Deployment";
import type { IStatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import type { IJob } from "kubernetes-models/batch/v1/Job";
import type { IHorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import type { INetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import type { IScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import type { IPodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import type { IPodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { IContainer } from "kubernetes-models/v1/Container";
import type { ISecret } from "kubernetes-models/v1/Secret";
import type { IService } from "kubernetes-models/v1/Service";
import { CATALOG } from "../../services/catalog.js";
import { SERVICE_NAMES, loadConfig } from "../../shared/runtime/config.js";
import { K8S_DIR, findKubectl, ofKind, readBaseFiles, render, validateObject, type K8sObject } from "./manifests.js";

/**
 * The kustomize base and overlays: every object against the Kubernetes schemas, then what the
 * schemas cannot see (probes, resources, security, references between objects, SERVICES).
 */
// Without kubectl only the base's files are checked (read directly); CI has kubectl.
const kubectl = findKubectl();

const HEALTH_PORT = 3001;
const METRICS_PORT = 3030;
const SCALED = ["gateway", "memos", "attachments", "ai"];

type Variant = "base" | "dev" | "production";
const load = (variant: Variant): K8sObject[] =>
	kubectl ? render(kubectl, path.join(K8S_DIR, variant === "base" ? "base" : `overlays/${variant}`)) : readBaseFiles();
const variants: Variant[] = kubectl ? ["base", "dev", "production"] : ["base"];

const deploymentsOf = (objects: K8sObject[]) => ofKind<IDeployment>(objects, "Deployment");
const containersOf = (d: IDeployment): IContainer[] => d.spec?.template.spec?.containers ?? [];
const envValue = (c: IContainer, name: string) => c.env?.find(e => e.name === name)?.value;
const servicesOf = (d: IDeployment) => (envValue(containersOf(d)[0] as IContainer, "SERVICES") ?? "").split(",").map(s => s.trim());
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
	selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
const portNumber = (c: IContainer, port: string | number | undefined) =>
	typeof port === "number" ? port : c.ports?.find(p => p.name === port)?.containerPort;

let templateSecrets: ISecret[] | undefined;

/**
 * What a container's process sees: its ConfigMap and Secret (production creates the Secret out
 * of band with the template's keys, so the base's template stands in) and its own env.
 */
function effectiveEnv(objects: K8sObject[], container: IContainer, podName: string): Record<string, string> {
	const env: Record<string, string> = {};
	templateSecrets ??= ofKind<ISecret>(readBaseFiles(), "Secret");
	for (const from of container.envFrom ?? []) {
		if (from.configMapRef) Object.assign(env, ofKind<IConfigMap>(objects, "ConfigMap").find(c => c.metadata.name === from.configMapRef?.name)?.data);
		if (from.secretRef) {
			const name = from.secretRef.name;
			const secret = ofKind<ISecret>(objects, "Secret").find(s => s.metadata.name === name) ?? templateSecrets.find(s => s.metadata?.name === name);
			Object.assign(env, secret?.stringData);
		}
	}
	for (const e of container.env ?? []) {
		if (e.value !== undefined) env[e.name] = e.value;
		else if (e.valueFrom?.fieldRef?.fieldPath === "metadata.name") env[e.name] = podName;
	}
	return env;
}

test("the schema validation rejects an object of the wrong shape", () => {
	const [deployment] = deploymentsOf(readBaseFiles());
	const broken = structuredClone(deployment) as unknown as K8sObject & IDeployment;
	(containersOf(broken)[0] as IContainer).ports = [{ containerPort: "health" as unknown as number }];
	expect(() => validateObject(broken)).toThrow(/Deployment memos-/);
	expect(() => validateObject({ ...broken, kind: "CronTab" })).toThrow(/no schema model/);
});

describe.each(variants)("k8s %s", variant => {
	let objects: K8sObject[];
	beforeAll(() => {
		objects = load(variant);
	});

	test("every object validates against the Kubernetes schema of its kind", () => {
		expect(objects.length).toBeGreaterThan(0);
		for (const object of objects) validateObject(object);
	});

	test("one Deployment per service; each SERVICES value names real services, and every service is deployed", () => {
		const deployed = deploymentsOf(objects).flatMap(servicesOf);
		for (const name of deployed) expect(SERVICE_NAMES).toContain(name);
		expect([...deployed].sort()).toEqual([...SERVICE_NAMES].sort());
	});

	test("every Deployment's containers have a startup and a liveness probe on /healthz and a readiness probe on /readyz of the health port", () => {
		for (const d of deploymentsOf(objects)) {
			for (const c of containersOf(d)) {
				expect({ name: d.metadata?.name, path: c.startupProbe?.httpGet?.path, port: portNumber(c, c.startupProbe?.httpGet?.port) }).toEqual({ name: d.metadata?.name, path: "/healthz", port: HEALTH_PORT });
				// The startup probe covers the start; the others need no initial delay.
				expect(c.livenessProbe?.initialDelaySeconds ?? 0).toBe(0);
				expect({ name: d.metadata?.name, path: c.livenessProbe?.httpGet?.path, port: portNumber(c, c.livenessProbe?.httpGet?.port) }).toEqual({ name: d.metadata?.name, path: "/healthz", port: HEALTH_PORT });
				expect({ name: d.metadata?.name, path: c.readinessProbe?.httpGet?.path, port: portNumber(c, c.readinessProbe?.httpGet?.port) }).toEqual({ name: d.metadata?.name, path: "/readyz", port: HEALTH_PORT });
			}
		}
	});

	test("every Deployment's containers request CPU and memory and limit memory", () => {
		for (const d of deploymentsOf(objects)) {
			for (const c of containersOf(d)) {
				expect(c.resources?.requests).toEqual(expect.objectContaining({ cpu: expect.anything(), memory: expect.anything() }));
				expect(c.resources?.limits).toEqual(expect.objectContaining({ memory: expect.anything() }));
			}
		}
	});

	test("every Deployment runs as non-root on a read-only root filesystem, without privilege escalation or capabilities", () => {
		for (const d of deploymentsOf(objects)) {
			const pod = d.spec?.template.spec;
			for (const c of containersOf(d)) {
				expect(c.securityContext?.runAsNonRoot ?? pod?.securityContext?.runAsNonRoot).toBe(true);
				expect(c.securityContext?.readOnlyRootFilesystem).toBe(true);
				expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
				expect(c.securityContext?.capabilities?.drop).toContain("ALL");
			}
		}
	});

	test("with a read-only root, /tmp and the data directory are writable emptyDir volumes", () => {
		for (const d of deploymentsOf(objects)) {
			const volumes = d.spec?.template.spec?.volumes ?? [];
			for (const c of containersOf(d)) {
				const dataDir = effectiveEnv(objects, c, "pod").DATA_DIR;
				expect(dataDir).toMatch(/^\//);
				for (const dir of ["/tmp", dataDir]) {
					const mount = c.volumeMounts?.find(m => m.mountPath === dir);
					expect({ dir, mounted: mount !== undefined && mount.readOnly !== true }).toEqual({ dir, mounted: true });
					expect(volumes.find(v => v.name === mount?.name)?.emptyDir).toBeDefined();
				}
			}
		}
	});

	test("each container's environment is a valid configuration with the transporter and the stores its services need", () => {
		for (const d of deploymentsOf(objects)) {
			for (const c of containersOf(d)) {
				const config = loadConfig(effectiveEnv(objects, c, `${d.metadata?.name}-7d9f8c6b5-x2x9z`));
				expect(config.transporter).toMatch(/^(nats|tls):\/\//);
				for (const name of config.services) {
					if (CATALOG[name].documents) expect({ name, mongoUrl: config.mongoUrl !== undefined }).toEqual({ name, mongoUrl: true });
					if (CATALOG[name].blobs) expect({ name, s3: config.s3 !== undefined }).toEqual({ name, s3: true });
				}
			}
		}
	});

	test("terminationGracePeriodSeconds is above the broker's shutdown timeout", () => {
		for (const d of deploymentsOf(objects)) {
			const grace = d.spec?.template.spec?.terminationGracePeriodSeconds ?? 30;
			for (const c of containersOf(d)) {
				const { shutdownTimeoutMs } = loadConfig(effectiveEnv(objects, c, "pod"));
				expect(grace).toBeGreaterThan(10);
				expect(grace * 1000).toBeGreaterThan(shutdownTimeoutMs);
			}
		}
	});

	test("every pod is annotated for Prometheus on the metrics port, which the container declares", () => {
		for (const d of deploymentsOf(objects)) {
			expect(d.spec?.template.metadata?.annotations).toEqual(
				expect.objectContaining({ "prometheus.io/scrape": "true", "prometheus.io/port": String(METRICS_PORT), "prometheus.io/path": "/metrics" })
			);
			for (const c of containersOf(d)) expect(c.ports?.map(p => p.containerPort)).toContain(METRICS_PORT);
		}
	});

	test("each Deployment has a PodDisruptionBudget, and each PodDisruptionBudget selects the pods of exactly one Deployment", () => {
		const deployments = deploymentsOf(objects);
		const pdbs = ofKind<IPodDisruptionBudget>(objects, "PodDisruptionBudget");
		for (const pdb of pdbs) {
			const targets = deployments.filter(d => matches(pdb.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
			expect({ pdb: pdb.metadata?.name, targets: targets.length }).toEqual({ pdb: pdb.metadata?.name, targets: 1 });
		}
		for (const d of deployments) {
			const covered = pdbs.some(pdb => matches(pdb.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
			expect({ deployment: d.metadata?.name, covered }).toEqual({ deployment: d.metadata?.name, covered: true });
		}
	});

	test("gateway, memos, attachments and ai each have one autoscaler (autoscaling/v2 HPA or KEDA ScaledObject) targeting their existing Deployment, which sets no replicas", () => {
		const deployments = deploymentsOf(objects);
		const hpas = ofKind<IHorizontalPodAutoscaler>(objects, "HorizontalPodAutoscaler");
		const scaledObjects = ofKind<IScaledObject>(objects, "ScaledObject");
		for (const hpa of hpas) {
			expect(hpa.apiVersion).toBe("autoscaling/v2");
			const ref = hpa.spec?.scaleTargetRef;
			expect(ref?.kind).toBe("Deployment");
			expect(deployments.map(d => d.metadata?.name)).toContain(ref?.name);
			expect(hpa.spec?.minReplicas ?? 1).toBeLessThanOrEqual(hpa.spec?.maxReplicas as number);
		}
		for (const so of scaledObjects) {
			expect(deployments.map(d => d.metadata?.name)).toContain(so.spec?.scaleTargetRef.name);
			expect(so.spec?.triggers.map(t => t.type).sort()).toEqual(["cpu", "prometheus"]);
		}
		const targets = [...hpas.map(hpa => hpa.spec?.scaleTargetRef.name), ...scaledObjects.map(so => so.spec?.scaleTargetRef.name)];
		const scaled = targets.flatMap(name => servicesOf(deployments.find(d => d.metadata?.name === name) as IDeployment));
		expect(scaled.sort()).toEqual([...SCALED].sort());
		// An apply would reset a count the autoscaler chose.
		for (const name of targets) expect({ name, replicas: deployments.find(d => d.metadata?.name === name)?.spec?.replicas }).toEqual({ name, replicas: undefined });
		// CPU, not memory: idle memory says nothing about load.
		for (const hpa of hpas) expect(hpa.spec?.metrics?.map(m => m.resource?.name)).toEqual(["cpu"]);
	});

	test("every Deployment spreads its pods over zones and nodes", () => {
		for (const d of deploymentsOf(objects)) {
			const spread = d.spec?.template.spec?.topologySpreadConstraints ?? [];
			expect({ name: d.metadata?.name, keys: spread.map(t => t.topologyKey).sort() }).toEqual({ name: d.metadata?.name, keys: ["kubernetes.io/hostname", "topology.kubernetes.io/zone"] });
			for (const t of spread) expect(matches(t.labelSelector?.matchLabels as Record<string, string>, d.spec?.template.metadata?.labels)).toBe(true);
		}
	});

	test("NetworkPolicies: every memos pod denies ingress but what is listed; only the gateway's API port is open, metrics only to Prometheus", () => {
		const policies = ofKind<INetworkPolicy>(objects, "NetworkPolicy");
		const ingressOf = (d: IDeployment) =>
			policies.filter(p => p.spec?.policyTypes?.includes("Ingress") && matches(p.spec.podSelector.matchLabels as Record<string, string>, d.spec?.template.metadata?.labels));
		for (const d of deploymentsOf(objects)) {
			const applying = ingressOf(d);
			expect({ name: d.metadata?.name, selected: applying.length > 0 }).toEqual({ name: d.metadata?.name, selected: true });
			const container = containersOf(d)[0] as IContainer;
			const open = applying.flatMap(p => p.spec?.ingress ?? []).flatMap(rule => (rule.ports ?? []).map(port => ({ port: portNumber(container, port.port), from: rule.from })));
			const api = open.filter(o => o.port === 5230);
			if (servicesOf(d).includes("gateway")) expect(api).toHaveLength(1);
			else expect(api).toHaveLength(0);
			for (const o of open.filter(o => o.port === METRICS_PORT)) expect(o.from?.[0]?.podSelector?.matchLabels).toEqual({ "app.kubernetes.io/name": "prometheus" });
			expect(open.map(o => o.port).every(p => [5230, HEALTH_PORT, METRICS_PORT].includes(p as number))).toBe(true);
		}
	});

	test("a PodMonitor scrapes the metrics port of every memos pod", () => {
		const [monitor, ...others] = ofKind<IPodMonitor>(objects, "PodMonitor");
		expect(others).toEqual([]);
		for (const d of deploymentsOf(objects)) {
			expect(matches(monitor?.spec.selector.matchLabels as Record<string, string>, d.spec?.template.metadata?.labels)).toBe(true);
			const port = monitor?.spec.podMetricsEndpoints?.[0]?.port as string;
			expect(portNumber(containersOf(d)[0] as IContainer, port)).toBe(METRICS_PORT);
		}
	});

	test("the gateway's Service selects the gateway pods and reaches their API port", () => {
		const gateway = deploymentsOf(objects).find(d => servicesOf(d).includes("gateway")) as IDeployment;
		const services = ofKind<IService>(objects, "Service").filter(s => matches(s.spec?.selector, gateway.spec?.template.metadata?.labels));
		expect(services).toHaveLength(1);
		const container = containersOf(gateway)[0] as IContainer;
		const targets = (services[0]?.spec?.ports ?? []).map(p => portNumber(container, p.targetPort ?? p.port));
		expect(targets).toContain(5230);
	});

	test("the migrate Job runs the services' image with --migrate, once, reading the configuration and Secret the document services read", () => {
		const jobs = ofKind<IJob>(objects, "Job");
		expect(jobs.map(j => j.metadata?.name)).toEqual(["memos-migrate"]);
		const pod = jobs[0]?.spec?.template.spec;
		const container = pod?.containers[0] as IContainer;
		const memos = deploymentsOf(objects).find(d => servicesOf(d).includes("memos")) as IDeployment;
		const memosContainer = containersOf(memos)[0] as IContainer;
		expect({ restartPolicy: pod?.restartPolicy, image: container.image, args: container.args, envFrom: container.envFrom }).toEqual({
			restartPolicy: "Never",
			image: memosContainer.image,
			args: ["node", "dist/services/main.js", "--migrate"],
			envFrom: memosContainer.envFrom
		});
		expect(container.securityContext).toEqual(memosContainer.securityContext);
	});

	test("every ConfigMap and Secret a Deployment reads exists (production: the Secret is created out of band)", () => {
		const names = (kind: string) => objects.filter(o => o.kind === kind).map(o => o.metadata.name);
		for (const d of deploymentsOf(objects)) {
			for (const c of containersOf(d)) {
				for (const from of c.envFrom ?? []) {
					if (from.configMapRef) expect(names("ConfigMap")).toContain(from.configMapRef.name);
					if (from.secretRef) {
						if (variant === "production") expect(names("Secret")).not.toContain(from.secretRef.name);
						else expect(names("Secret")).toContain(from.secretRef.name);
					}
				}
			}
		}
	});
});

const describeOverlays = kubectl ? describe : describe.skip;

describeOverlays("k8s overlays", () => {
	test("dev adds single-replica NATS (JetStream, with credentials), MongoDB and SeaweedFS as S3, each behind a Service the configuration points at and reachable only from memos pods", () => {
		const objects = load("dev");
		const sets = ofKind<IStatefulSet>(objects, "StatefulSet");
		expect(sets.map(s => s.metadata?.name).sort()).toEqual(["mongo", "nats", "s3"]);
		for (const set of sets) {
			expect(set.spec?.replicas).toBe(1);
			const service = ofKind<IService>(objects, "Service").find(s => matches(s.spec?.selector, set.spec?.template.metadata?.labels));
			expect(service?.metadata?.name).toBe(set.metadata?.name);
			const guards = ofKind<INetworkPolicy>(objects, "NetworkPolicy").filter(p =>
				(p.spec?.podSelector.matchExpressions ?? []).some(e => e.operator === "In" && e.values?.includes(set.spec?.template.metadata?.labels?.["app.kubernetes.io/name"] as string))
			);
			expect(guards.flatMap(p => p.spec?.ingress ?? []).map(r => r.from)).toEqual([[{ podSelector: { matchLabels: { "app.kubernetes.io/name": "memos" } } }]]);
		}
		const nats = sets.find(s => s.metadata?.name === "nats") as IStatefulSet;
		const natsArgs = nats.spec?.template.spec?.containers[0]?.args ?? [];
		expect(natsArgs).toContain("--jetstream");
		expect(natsArgs).toEqual(expect.arrayContaining(["--user", "$(NATS_USER)", "--pass", "$(NATS_PASSWORD)"]));

		const attachments = deploymentsOf(objects).find(d => servicesOf(d).includes("attachments")) as IDeployment;
		const config = loadConfig(effectiveEnv(objects, containersOf(attachments)[0] as IContainer, "pod"));
		expect(new URL(config.transporter as string).hostname).toBe("nats");
		expect(config.bus).toEqual({ user: "memos", password: expect.any(String) });
		expect(new URL(config.mongoUrl as string).hostname).toBe("mongo");
		expect(new URL(config.mongoUrl as string).searchParams.get("replicaSet")).toBe("rs0");
		const mongo = sets.find(s => s.metadata?.name === "mongo") as IStatefulSet;
		expect(mongo.spec?.template.spec?.containers[0]?.args).toEqual(expect.arrayContaining(["--replSet", "rs0"]));
		expect(JSON.stringify(mongo.spec?.template.spec?.containers[0]?.readinessProbe)).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
		const mongoService = ofKind<IService>(objects, "Service").find(s => s.metadata?.name === "mongo") as IService;
		expect({ clusterIP: mongoService.spec?.clusterIP, publishNotReadyAddresses: mongoService.spec?.publishNotReadyAddresses }).toEqual({ clusterIP: "None", publishNotReadyAddresses: true });
		expect(config.s3?.endPoint).toBe("s3");
		for (const object of objects) if (object.kind !== "Namespace") expect(object.metadata.namespace).toBe("memos-dev");
	});

	test("production runs no infrastructure of its own, raises every replica floor and scales ai and attachments with KEDA", () => {
		const objects = load("production");
		const base = load("base");
		expect(ofKind(objects, "StatefulSet")).toEqual([]);
		const config = ofKind<IConfigMap>(objects, "ConfigMap").find(c => c.metadata?.name?.startsWith("memos-config"))?.data ?? {};
		expect(new URL(config.TRANSPORTER as string).hostname).not.toBe("nats");
		expect(new URL(config.S3_ENDPOINT as string).hostname).not.toBe("minio");

		for (const d of deploymentsOf(objects)) {
			const before = deploymentsOf(base).find(b => b.metadata?.name === d.metadata?.name);
			if (before?.spec?.replicas !== undefined) expect(d.spec?.replicas as number).toBeGreaterThan(before.spec.replicas);
		}
		for (const hpa of ofKind<IHorizontalPodAutoscaler>(objects, "HorizontalPodAutoscaler")) {
			const before = ofKind<IHorizontalPodAutoscaler>(base, "HorizontalPodAutoscaler").find(b => b.metadata?.name === hpa.metadata?.name);
			expect(hpa.spec?.minReplicas as number).toBeGreaterThan(before?.spec?.minReplicas as number);
		}
		const scaledObjects = ofKind<IScaledObject>(objects, "ScaledObject");
		expect(scaledObjects.map(so => so.spec?.scaleTargetRef.name).sort()).toEqual(["memos-ai", "memos-attachments"]);
		for (const so of scaledObjects) expect(so.spec?.minReplicaCount).toBe(3);
		for (const object of objects) if (object.kind !== "Namespace") expect(object.metadata.namespace).toBe("memos");
	});

	test("the ConfigMap is generated with a content hash in its name, so a change rolls the pods", () => {
		for (const variant of ["base", "dev", "production"] as const) {
			const objects = load(variant);
			const config = ofKind<IConfigMap>(objects, "ConfigMap").find(c => c.metadata?.name?.startsWith("memos-config")) as IConfigMap;
			expect(config.metadata?.name).toMatch(/^memos-config-[a-z0-9]{10}$/);
			for (const d of deploymentsOf(objects)) expect(containersOf(d)[0]?.envFrom?.map(f => f.configMapRef?.name)).toContain(config.metadata?.name);
		}
	});

	test("infrastructure images exist and are pinned by version (no latest, no MinIO: its images left Docker Hub), NATS in its supported 2.14+ lines", () => {
		const images = (["dev", "production"] as const).flatMap(v => ofKind<IStatefulSet>(load(v), "StatefulSet").flatMap(s => s.spec?.template.spec?.containers.map(c => c.image as string) ?? []));
		for (const image of images) {
			expect(image).toMatch(/:\d+(\.\d+)+(-[a-z]+)?(@sha256:[0-9a-f]{64})?$/);
			expect(image).not.toMatch(/minio/);
		}
		const nats = images.find(i => i.startsWith("nats:")) as string;
		expect(Number(/^nats:2\.(\d+)/.exec(nats)?.[1])).toBeGreaterThanOrEqual(14);
	});
});
