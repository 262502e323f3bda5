import type { BrokerOptions } from "moleculer";
import { pino } from "pino";
import { BusinessMetricsMiddleware } from "./business-metrics.js";
import { brokerMiddlewares } from "./call-deadline.js";
import { FAILURE_POLICIES } from "./call-failures.js";
import { BatchedDestination } from "./log-destination.js";
import type { Config } from "./config.js";
import { ConventionalPrometheusReporter, METRIC_EXCLUDES } from "./prometheus-reporter.js";
import { RequestContextMiddleware, currentRequestId } from "./request-context.js";
import { tracingOptions } from "./tracing.js";

/**
 * NATS client options: the server of TRANSPORTER plus the credentials and TLS files of the
 * environment (credentials in the URL count when NATS_USER is unset). Given as `servers`, not
 * `url`: Moleculer's transporter would replace `user` and `pass` with the URL's (none).
 */
export function natsOptions(config: Config): Record<string, unknown> {
	const url = new URL(config.transporter as string);
	const { user, password, token, tls } = config.bus;
	const options: Record<string, unknown> = {
		servers: [`${url.protocol}//${url.host}`],
		user: user ?? (decodeURIComponent(url.username) || undefined),
		pass: password ?? (decodeURIComponent(url.password) || undefined),
		token,
		tls
	};
	return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

let stdout: BatchedDestination | undefined;

/**
 * Log lines go to stdout asynchronously (a request never waits for a write), in batches, through
 * one destination per process that writes what waits when the process exits (log-destination.ts).
 */
function stdoutDestination(): BatchedDestination {
	stdout ??= new BatchedDestination({
		fd: 1,
		// Lines lost are said in the log itself, once stdout has caught up.
		onDropped: lines => pino(stdout).warn({ droppedLines: lines }, `${lines} log lines dropped: stdout did not keep up with them`)
	});
	return stdout;
}

/** Broker settings for one process, the same in both run modes except the transporter. */
export async function brokerOptions(config: Config): Promise<BrokerOptions> {
	// Loaded only for a cluster: the NATS client is ~65 modules an embedded process never uses.
	const nats = config.transporter ? await import("./nats-transporter.js") : undefined;
	return {
		namespace: config.namespace,
		nodeID: config.nodeId,
		transporter: nats ? new nats.NatsTransporter(natsOptions(config)) : null,
		// What the transporter can take from other nodes (raw stream chunks), for them to see.
		metadata: nats ? { ...nats.TRANSPORT_METADATA } : {},
		logger:
			config.logLevel === "silent"
				? false
				: config.logFormat === "pretty"
					? // At a terminal: one short coloured line per message (time, level, module, text).
						{ type: "Console", options: { level: config.logLevel, formatter: "short", colors: true, moduleColors: false, autoPadding: false } }
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
		// The fallback for losses NATS cannot see; a node that leaves NATS is found sooner (node-liveness.ts).
		heartbeatInterval: 5,
		heartbeatTimeout: 15,
		...FAILURE_POLICIES,
		registry: { strategy: "RoundRobin", preferLocal: true },
		metrics: {
			enabled: config.metricsEnabled,
			// Moleculer takes a reporter instance too, although its typings name only the options form.
			reporter: [new ConventionalPrometheusReporter({ host: config.host, port: config.metricsPort, path: "/metrics", excludes: METRIC_EXCLUDES }) as never]
		},
		tracing: tracingOptions(config),
		validator: true,
		internalMiddlewares: false,
		middlewares: brokerMiddlewares([RequestContextMiddleware, BusinessMetricsMiddleware]),
		// The process owns SIGTERM: it drains and closes stores itself (shared/runtime/node.ts).
		skipProcessEventRegistration: true
	};
}
