import type { BrokerOptions } from "moleculer";
import { pino } from "pino";
import { BusinessMetricsMiddleware } from "./business-metrics.js";
import { brokerMiddlewares } from "./call-deadline.js";
import { FAILURE_POLICIES } from "./call-failures.js";
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

type Destination = ReturnType<typeof pino.destination>;

const KiB = 1024;

let stdout: Destination | undefined;

/**
 * Log lines go to stdout asynchronously (a request never waits for a write), through one
 * stream per process; pino flushes it when the process exits. Lines are written in batches of
 * some 32 KiB, or after at most 100 ms: one write per access-log line (a thread-pool job and
 * the wake-ups around it) cost the profile request some 5 µs of CPU. Buffers rather than
 * strings (`toBuffer` below): sonic-boom appends string lines to the batch with `+=` and
 * measures the batch's bytes at every line, flattening it each time (quadratic within a batch).
 * An access line cost ~3.7 µs of CPU as strings in 4 KiB batches, ~3.0 as buffers in 4 KiB
 * batches, ~2.4 in 32 KiB ones (over ~1 µs at LOG_LEVEL=warn; /tmp logbench, 200,000 lines,
 * issue 15).
 */
function stdoutDestination(): Destination {
	stdout ??= logDestination(1);
	return stdout;
}

/**
 * pino's own destination (sonic-boom) on `fd`, as `stdoutDestination` describes, with at most
 * `maxBytes` waiting when the descriptor is slower than the lines come: sonic-boom drops a line
 * that would go beyond its `maxLength` and emits "drop", rather than the process growing until it
 * dies. WHY the drops are only counted, and said in one warn line on "drain": a line logged per
 * drop would feed the very stream that is full. "drain" comes when a write is done and at most a
 * batch waits, far below the bound, so the notice has room; it is written from "drain" only, once
 * per count, so it cannot loop, and were it dropped itself it would be counted and said at the
 * next "drain". At exit pino writes the backlog synchronously (its exit listener, registered by
 * pino.destination, comes before this one); a count not yet said is then written the same way.
 */
export function logDestination(fd: number, maxBytes = 16 * KiB * KiB): Destination {
	const stream = pino.destination({ dest: fd, sync: false, contentMode: "buffer", minLength: 32 * KiB, maxWrite: 64 * KiB, maxLength: maxBytes, periodicFlush: 100 });
	const log = pino({ hooks: { streamWrite: toBuffer } }, stream);
	let dropped = 0;
	const reportDropped = (): boolean => {
		if (dropped === 0) return false;
		const lines = dropped;
		dropped = 0;
		log.warn({ droppedLines: lines }, `${lines} log lines dropped: the log's reader did not keep up with them`);
		return true;
	};
	stream.on("drop", () => dropped++);
	stream.on("drain", reportDropped);
	process.once("exit", () => {
		if (reportDropped()) stream.flushSync();
	});
	return stream;
}

/**
 * Each line as the buffer a "buffer" sonic-boom takes. pino hands its stream whatever this hook
 * returns; its typings say a string only because they assume a string stream.
 */
const toBuffer = (line: string): string => Buffer.from(line) as unknown as string;

/** What the log mixin adds to a line that names its request already, or is written outside one. */
const NOTHING = Object.freeze({});

/**
 * The request id for a log line: nothing when the line has its own (the access log's), which
 * pino's default merge would copy, with all the line's fields, into a new object at every line.
 */
function requestIdOf(line: object): object {
	if ("requestId" in line) return NOTHING;
	const requestId = currentRequestId();
	return requestId ? { requestId } : NOTHING;
}

/** pino's default merge (the line's fields win), skipped when there is nothing to add. */
function withRequestId(line: object, mixed: object): object {
	return mixed === NOTHING ? line : Object.assign(mixed, line);
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
									hooks: { streamWrite: toBuffer },
									// Every line written while serving a request names it.
									mixin: requestIdOf,
									mixinMergeStrategy: withRequestId
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
