import type { AddressInfo } from "node:net";
import { ServiceBroker } from "moleculer";
import ApiGateway from "moleculer-web";

/**
 * The framework's floor: moleculer-web with its defaults and one action that returns the
 * profile endpoint's message (BENCH_BODY, base64), no transporter, logs at warn so none is
 * written per request. Prints its port once listening.
 */
const message: unknown = JSON.parse(Buffer.from(process.env.BENCH_BODY ?? "", "base64").toString("utf8"));

const broker = new ServiceBroker({ nodeID: "bench-bare", logger: { type: "Console", options: { level: "warn" } } });
broker.createService({ name: "bench", actions: { profile: () => message } });
const gateway = broker.createService({
	name: "api",
	mixins: [ApiGateway],
	settings: { port: 0, ip: "127.0.0.1", routes: [{ path: "/api/v1", aliases: { "GET /instance/profile": "bench.profile" } }] }
});

await broker.start();
const port = ((gateway as unknown as { server: { address(): AddressInfo } }).server.address()).port;
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.once("SIGTERM", () => void broker.stop().then(() => process.exit(0)));
