import { METRIC, type ServiceBroker } from "moleculer";

/** The maps of Moleculer's transit whose sizes its gauges show (not in its typings). */
interface TransitMaps {
	pendingRequests: Map<unknown, unknown>;
	pendingReqStreams: Map<unknown, unknown>;
	pendingResStreams: Map<unknown, unknown>;
}

/** The parts of a Moleculer gauge used here. */
interface Gauge {
	set(value: number): unknown;
	snapshot(): unknown;
}

/** Makes `gauge` read `size()` whenever its snapshot (what every exposition and list reads) is taken. */
function readOnSnapshot(gauge: Gauge, size: () => number): void {
	const snapshot = gauge.snapshot.bind(gauge);
	gauge.snapshot = () => {
		gauge.set(size());
		return snapshot();
	};
}

/**
 * `moleculer_transit_requests_active` and `moleculer_transit_streams_send_active` read as the
 * current sizes of the transit's pending requests and streams. Moleculer 0.15.2's Metrics
 * middleware instead adds the sizes to the gauges at every packet published, so they only grow;
 * and a size read at publish time would miss the answers that empty the maps, since receiving
 * one publishes nothing. The sizes are read when the gauges are, not kept up to date on every
 * request sent and answered (two gauge updates per remote call, ~1 % of the gateway's CPU under
 * load). Call after the gauges are registered.
 */
export function gaugeTransitSizes(broker: ServiceBroker): void {
	const transit = broker.transit as unknown as TransitMaps | undefined;
	if (transit === undefined) return;
	const gauge = (name: string) => broker.metrics.getMetric(name) as unknown as Gauge;
	readOnSnapshot(gauge(METRIC.MOLECULER_TRANSIT_REQUESTS_ACTIVE), () => transit.pendingRequests.size);
	readOnSnapshot(gauge(METRIC.MOLECULER_TRANSIT_STREAMS_SEND_ACTIVE), () => transit.pendingReqStreams.size + transit.pendingResStreams.size);
}
