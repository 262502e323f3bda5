import { ServiceBroker } from "moleculer";
import { NatsTransporter } from "../../shared/runtime/nats-transporter.js";
import { findNatsServer, freePort, startProcess, type Proc } from "./processes.js";

type Publish = (subject: string, data: Uint8Array, options?: { headers?: unknown }) => void;

/** Calls `listener` for every message `broker`'s NATS client publishes, before it goes out. */
export function onPublish(broker: ServiceBroker, listener: Publish): void {
	const client = (broker.transit?.tx as unknown as { client: { publish: Publish } }).client;
	const publish = client.publish.bind(client);
	client.publish = (subject, data, options) => {
		listener(subject, data, options);
		publish(subject, data, options);
	};
}

/** A broker on our NatsTransporter at `url`, CBOR as the app's, advertising `metadata`. */
export function wireBroker(namespace: string, nodeID: string, url: string, metadata: Record<string, unknown>): ServiceBroker {
	return new ServiceBroker({ nodeID, namespace, transporter: new NatsTransporter({ servers: [url] }), serializer: "CBOR", logger: false, metadata });
}

/** A nats-server of the suite's own on a free loopback port, started before its tests and stopped after; `url()` once started. */
export function natsServerForSuite(): { url(): string } {
	let nats: Proc | undefined;
	let url: string | undefined;
	beforeAll(async () => {
		const port = await freePort();
		nats = startProcess(findNatsServer() as string, ["-a", "127.0.0.1", "-p", String(port)], {});
		url = `nats://127.0.0.1:${port}`;
		await nats.reported("nats-server ready", /Server is ready/);
	});
	afterAll(async () => {
		await nats?.stop();
	});
	return {
		url: () => {
			if (url === undefined) throw new Error("the suite's nats-server has not started");
			return url;
		}
	};
}
