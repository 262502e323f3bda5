import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, ServiceBroker } from "moleculer";
import type { Caller, RequestMeta } from "../../shared/caller.js";
import { permissionDenied, unauthenticated } from "../../shared/errors.js";
import { toTimestamp } from "../../shared/proto-json.js";
import { REQUIRED_SERVICES, SERVICE_NAMES } from "../../shared/runtime/config.js";
import { advertisedStoreIdentity } from "../../shared/runtime/store-identity.js";
import { callerOfAuthorization } from "./bearer.js";

/** `GET /health/cluster` (contract 13): every node and service the gateway's registry knows, with availability. */

export interface ServiceView {
	name: string;
	available: boolean;
	/** Available nodes offering the service. */
	nodeCount: number;
	/** Its available nodes advertise different document stores: its data is split (issue 16.7). */
	storeMismatch: boolean;
}

export interface NodeView {
	nodeId: string;
	hostname: string;
	available: boolean;
	lastHeartbeatTime: string;
	services: string[];
	cpu: number;
	/** The identity of the document store each service of the node uses (none for services without one). */
	documentStores: Record<string, string>;
}

export interface ClusterView {
	status: "ok" | "degraded";
	generatedTime: string;
	services: ServiceView[];
	nodes: NodeView[];
}

/** The parts of a registry node entry (`getNodeList()`) the view reads. */
export interface RegistryNode {
	id: string;
	available: boolean;
	local: boolean;
	hostname: string | null;
	cpu: number | null;
	/** Seconds of this process's uptime when the last heartbeat arrived (Moleculer's clock). */
	lastHeartbeatTime: number;
	/** What the node advertises (store identities, see shared/runtime/store-identity.ts). */
	metadata?: unknown;
}

/** One service on one node (`getServiceList()`). */
export interface RegistryService {
	name: string;
	nodeID: string;
}

export interface ClusterClock {
	now: number;
	/** This process's uptime in seconds, the clock of `lastHeartbeatTime`. */
	uptimeSeconds: number;
}

const isInternal = (name: string) => name.startsWith("$");

function documentStoresOf(metadata: unknown, services: readonly string[]): Record<string, string> {
	const stores: Record<string, string> = {};
	for (const name of services) {
		const identity = advertisedStoreIdentity(metadata, name);
		if (identity !== undefined) stores[name] = identity;
	}
	return stores;
}

/**
 * The view and its HTTP status: 200 when every required service has an available node, else
 * 503; the body says "degraded" as soon as any listed service (an optional one too) has none,
 * or any has replicas on different document stores.
 */
export function clusterView(nodes: readonly RegistryNode[], registered: readonly RegistryService[], clock: ClusterClock): { status: number; body: ClusterView } {
	const servicesOn = (nodeId: string) => [...new Set(registered.filter(s => s.nodeID === nodeId && !isInternal(s.name)).map(s => s.name))].sort();
	const nodeViews: NodeView[] = nodes
		.map(node => {
			const services = servicesOn(node.id);
			return {
				nodeId: node.id,
				hostname: node.hostname ?? "",
				available: node.available,
				// The local node sends itself no heartbeats: it is alive as long as it answers.
				lastHeartbeatTime: toTimestamp(node.local ? clock.now : clock.now - Math.max(0, clock.uptimeSeconds - node.lastHeartbeatTime) * 1000),
				services,
				cpu: Math.round(node.cpu ?? 0),
				documentStores: documentStoresOf(node.metadata, services)
			};
		})
		.sort((a, b) => (a.nodeId < b.nodeId ? -1 : a.nodeId > b.nodeId ? 1 : 0));

	const others = [...new Set(nodeViews.flatMap(n => n.services))].filter(name => !(SERVICE_NAMES as readonly string[]).includes(name)).sort();
	const services: ServiceView[] = [...SERVICE_NAMES, ...others].map(name => {
		const offering = nodeViews.filter(n => n.available && n.services.includes(name));
		const stores = new Set(offering.flatMap(n => (n.documentStores[name] === undefined ? [] : [n.documentStores[name]])));
		return { name, available: offering.length > 0, nodeCount: offering.length, storeMismatch: stores.size > 1 };
	});
	const complete = services.filter(s => (REQUIRED_SERVICES as readonly string[]).includes(s.name)).every(s => s.available);
	const whole = services.filter(s => (SERVICE_NAMES as readonly string[]).includes(s.name)).every(s => s.available) && !services.some(s => s.storeMismatch);
	return {
		status: complete ? 200 : 503,
		body: { status: whole ? "ok" : "degraded", generatedTime: toTimestamp(clock.now), services, nodes: nodeViews }
	};
}

/** Only instance admins may see the cluster: the access token is verified by the auth service, as for API routes. */
async function requireAdmin(ctx: Context<unknown, RequestMeta>, authorization: string | undefined): Promise<Caller> {
	if (authorization === undefined) throw unauthenticated();
	const caller = await callerOfAuthorization(ctx, authorization);
	if (caller.role !== "ADMIN") throw permissionDenied("the cluster view is for instance admins");
	return caller;
}

interface GatewayLike {
	broker: ServiceBroker;
	sendResponse(req: IncomingMessage, res: ServerResponse, data: unknown): void;
}

type AliasRequest = IncomingMessage & { $ctx: Context<unknown, RequestMeta & { $statusCode?: number }> };

/** The moleculer-web alias of the ops route; failures go to `next`, and from there to the Status mapping. */
export function clusterViewAlias(this: GatewayLike, req: AliasRequest, res: ServerResponse, next: (err?: unknown) => void): void {
	requireAdmin(req.$ctx, req.headers.authorization)
		.then(() => {
			const { registry } = this.broker;
			const nodes = registry.getNodeList({ onlyAvailable: false, withServices: false }) as unknown as RegistryNode[];
			const registered = registry.getServiceList({ skipInternal: true }) as RegistryService[];
			const { status, body } = clusterView(nodes, registered, { now: Date.now(), uptimeSeconds: process.uptime() });
			req.$ctx.meta.$statusCode = status;
			this.sendResponse(req, res, body);
		})
		.catch(next);
}
