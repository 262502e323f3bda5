import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { Job } from "kubernetes-models/batch/v1/Job";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1/NetworkPolicy";
import { PodMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor";
import { PrometheusRule } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { parseAllDocuments } from "yaml";

/** A Kubernetes object as rendered: only the parts the checks read are typed. */
export interface K8sObject {
	apiVersion: string;
	kind: string;
	metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
	[key: string]: unknown;
}

/** The schema model of every kind the manifests use; a kind missing here fails the tests. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
	"v1/Namespace": Namespace,
	"v1/ConfigMap": ConfigMap,
	"v1/Secret": Secret,
	"v1/Service": Service,
	"apps/v1/Deployment": Deployment,
	"apps/v1/StatefulSet": StatefulSet,
	"batch/v1/Job": Job,
	"policy/v1/PodDisruptionBudget": PodDisruptionBudget,
	"autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
	"networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
	"monitoring.coreos.com/v1/PodMonitor": PodMonitor,
	"monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
	"keda.sh/v1alpha1/ScaledObject": ScaledObject
};

/** Validates against the Kubernetes schema of its kind; throws with the object's name on failure. */
export function validateObject(object: K8sObject): void {
	const Model = MODELS[`${object.apiVersion}/${object.kind}`];
	if (!Model) throw new Error(`no schema model for ${object.apiVersion} ${object.kind} (${object.metadata?.name})`);
	try {
		new Model(object as never).validate();
	} catch (err) {
		throw new Error(`${object.kind} ${object.metadata.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
	}
}

export const K8S_DIR = path.resolve("k8s");

export function findKubectl(): string | undefined {
	try {
		execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
		return "kubectl";
	} catch {
		return undefined;
	}
}

export function parseYamlStream(text: string): K8sObject[] {
	return parseAllDocuments(text)
		.map(doc => {
			if (doc.errors.length > 0) throw doc.errors[0];
			return doc.toJS() as K8sObject | null;
		})
		.filter((object): object is K8sObject => object !== null);
}

/** `kubectl kustomize <dir>`, parsed. */
export function render(kubectl: string, dir: string): K8sObject[] {
	return parseYamlStream(execFileSync(kubectl, ["kustomize", dir], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }));
}

interface Kustomization {
	resources?: string[];
	configMapGenerator?: { name: string; literals?: string[] }[];
}

/** The base's kustomization.yaml. */
export function baseKustomization(): Kustomization {
	return parseYamlStream(readFileSync(path.join(K8S_DIR, "base", "kustomization.yaml"), "utf8"))[0] as unknown as Kustomization;
}

/**
 * The base's resources read directly, and the ConfigMaps of its generator's literals (without
 * the name's hash): what can be checked without kubectl.
 */
export function readBaseFiles(): K8sObject[] {
	const dir = path.join(K8S_DIR, "base");
	const kustomization = baseKustomization();
	const generated = (kustomization.configMapGenerator ?? [])
		.filter(g => g.literals !== undefined)
		.map(g => ({
			apiVersion: "v1",
			kind: "ConfigMap",
			metadata: { name: g.name },
			data: Object.fromEntries((g.literals ?? []).map(l => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]))
		}));
	return [...(kustomization.resources ?? []).flatMap(file => parseYamlStream(readFileSync(path.join(dir, file), "utf8"))), ...generated];
}

export function ofKind<T = K8sObject>(objects: readonly K8sObject[], kind: string): (K8sObject & T)[] {
	return objects.filter(o => o.kind === kind) as (K8sObject & T)[];
}
