import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
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
	"policy/v1/PodDisruptionBudget": PodDisruptionBudget,
	"autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler
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

/** The base's files read directly: what can be checked without kubectl. */
export function readBaseFiles(): K8sObject[] {
	const dir = path.join(K8S_DIR, "base");
	return readdirSync(dir)
		.filter(file => file.endsWith(".yaml") && file !== "kustomization.yaml")
		.flatMap(file => parseYamlStream(readFileSync(path.join(dir, file), "utf8")));
}

export function ofKind<T = K8sObject>(objects: readonly K8sObject[], kind: string): (K8sObject & T)[] {
	return objects.filter(o => o.kind === kind) as (K8sObject & T)[];
}
