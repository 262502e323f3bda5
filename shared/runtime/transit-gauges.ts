import { METRIC, type ServiceBroker } from "moleculer";

/** The maps of Moleculer's transit whose sizes its gauges show (not in its typings). */
interface TransitMaps {
	pendingRequests: Map<unknown, unknown>;
	pendingReqStreams: Map<unknown, unknown>;
	pendingResStreams: Map<unknown, unknown>;
}

/** A map that calls `changed` after each change of its entries. */
class WatchedMap<K, V> extends Map<K, V> {
	constructor(private readonly changed: () => void) {
		super();
	}

	override set(key: K, value: V): this {
		super.set(key, value);
		this.changed();
		return this;
	}

	override delete(key: K): boolean {
		const deleted = super.delete(key);
		if (deleted) this.changed();
		return deleted;
	}

	override clear(): void {
		super.clear();
		this.changed();
	}
}

function watched(map: Map<unknown, unknown>, changed: () => void): WatchedMap<unknown, unknown> {
	const copy = new WatchedMap<unknown, unknown>(changed);
	for (const [key, value] of map) copy.set(key, value);
	return copy;
}

/**
 * `moleculer_transit_requests_active` and `moleculer_transit_streams_send_active` set to the
 * current sizes of the transit's pending requests and streams whenever these change.
 * Moleculer 0.15.2's Metrics middleware instead adds the sizes to the gauges at every packet
 * published, so they only grow; and a size read at publish time would miss the answers that
 * empty the maps, since receiving one publishes nothing. Call after the gauges are registered.
 */
export function gaugeTransitSizes(broker: ServiceBroker): void {
	const transit = broker.transit as unknown as TransitMaps | undefined;
	if (transit === undefined) return;
	const setRequests = () => broker.metrics.set(METRIC.MOLECULER_TRANSIT_REQUESTS_ACTIVE, transit.pendingRequests.size);
	const setStreams = () =>
		broker.metrics.set(METRIC.MOLECULER_TRANSIT_STREAMS_SEND_ACTIVE, transit.pendingReqStreams.size + transit.pendingResStreams.size);
	transit.pendingRequests = watched(transit.pendingRequests, setRequests);
	transit.pendingReqStreams = watched(transit.pendingReqStreams, setStreams);
	transit.pendingResStreams = watched(transit.pendingResStreams, setStreams);
	setRequests();
	setStreams();
}
