import http from "node:http";
import type { AddressInfo } from "node:net";
import { drainOnShutdown } from "../../shared/runtime/http-drain.js";
import { Shutdown } from "../../shared/runtime/shutdown.js";

type Answer = { status: number; connection: string | undefined };

/** A keep-alive GET on `agent`, answered with its status and its Connection header. */
function get(port: number, agent: http.Agent, path: string): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const req = http.get({ host: "127.0.0.1", port, path, agent }, res => {
			res.resume();
			res.once("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
		});
		req.once("error", reject);
	});
}

test("at shutdown a response in flight goes out with Connection: close, a new request on an open connection is refused, and the server closes", async () => {
	const held: http.ServerResponse[] = [];
	let heldNow: () => void = () => undefined;
	const server = http.createServer((req, res) => {
		if (req.url === "/hold") {
			held.push(res);
			heldNow();
			return;
		}
		res.end("ok");
	});
	const shutdown = new Shutdown();
	drainOnShutdown(server, shutdown, (_req, res) => {
		res.writeHead(503).end();
		return true;
	});
	await new Promise<void>(resolve => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
	try {
		// Two connections: one idle after its answer, one with a request in flight.
		expect(await get(port, agent, "/")).toMatchObject({ status: 200, connection: "keep-alive" });
		const isHeld = new Promise<void>(resolve => (heldNow = resolve));
		const inFlight = get(port, agent, "/hold");
		await isHeld;
		const drained = shutdown.begin();
		held[0]?.end("late");
		expect(await inFlight).toEqual({ status: 200, connection: "close" });
		await drained;
		expect(server.listening).toBe(false);
	} finally {
		agent.destroy();
		server.closeAllConnections();
	}
});

