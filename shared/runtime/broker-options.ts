import type { BrokerOptions } from "moleculer";
import { pino } from "pino";
import { RequestContextMiddleware, currentRequestId } from "./request-context.js";
import type { Config } from "./config.js";

let stdout: ReturnType<typeof pino.destination> | undefined;

/**
 * Log lines go to stdout asynchronously (a request never waits for a write), through one
 * stream per process; pino flushes it when the process exits.
 */
function stdoutDestination(): ReturnType<typeof pino.destination> {
	stdout ??= pino.destination({ dest: 1, sync: false });
	return stdout;
}

/** Broker settings for one process, the same in both run modes except the transporter. */
export function brokerOptions(config: Config): BrokerOptions {
	return {
		namespace: "memos",
		nodeID: config.nodeId,
		transporter: config.transporter ? { type: "NATS", options: { url: config.transporter } } : null,
		logger:
			config.logLevel === "silent"
				? false
				: {
						type: "Pino",
						options: {
							level: config.logLevel,
							pino: {
								options: {
									level: config.logLevel,
									// Every line written while serving a request names it.
									mixin: () => {
										const requestId = currentRequestId();
										return requestId ? { requestId } : {};
									}
								},
								destination: stdoutDestination()
							}
						}
					},
		// Binary CBOR carries request bytes (attachments, audio) as they are; JSON would inflate them.
		serializer: "CBOR",
		requestTimeout: config.requestTimeoutMs,
		// Stop waits for in-flight calls (up to the timeout) before services shut down.
		tracking: { enabled: true, shutdownTimeout: config.shutdownTimeoutMs },
		heartbeatInterval: 5,
		heartbeatTimeout: 15,
		registry: { strategy: "RoundRobin", preferLocal: true },
		metrics: {
			enabled: config.metricsEnabled,
			reporter: [{ type: "Prometheus", options: { port: config.metricsPort, path: "/metrics" } }]
		},
		validator: true,
		middlewares: [RequestContextMiddleware],
		// The process owns SIGTERM: it drains and closes stores itself (shared/runtime/node.ts).
		skipProcessEventRegistration: true
	};
}
